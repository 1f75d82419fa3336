import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionQueueKit, startActionQueueKit } from './action-queue-kit.ts';

/**
 * The action queue's lifecycle, lanes and scheduler on real processes (issue 11 items 1-5,
 * R12.1-R12.5, docs/decisions/0235, 0236, 0238): an input interrupted while it prepares is
 * re-queued and runs next, once; the lanes' modes hold, batch and release the queue; a
 * session-level command sent during a turn runs at its boundary; dispatch is reported on
 * the wire; the ledger and the transcript hold each input once.
 */
let kit: ActionQueueKit;

beforeAll(async () => {
  kit = await startActionQueueKit('action-queue-e2e');
}, 120_000);

afterAll(async () => {
  kit?.stack.worker.kill('SIGCONT');
  await kit?.stack.stop();
});

describe('the action lifecycle and the lanes (R12.1-R12.5)', () => {
  it('an interrupt while the first input prepares re-queues it; it runs next, once', {
    timeout: 120_000,
  }, async () => {
    const opened = await kit.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = kit.client.follow(sid, 0);
    // The session row is born with the first prompt and its preparation waits for the
    // worker's confirmation of it: a stopped worker holds the input in `preparing`.
    kit.stack.worker.kill('SIGSTOP');
    const reply = await kit.client.op(sid, 'prompt', { text: 'hello there', inputId: 'in-prep' });
    expect(reply).toMatchObject({ ok: true, inputId: 'in-prep', delivery: 'startNow' });
    await waitUntil(
      () =>
        follow.events.some(
          (e) => e.type === 'turn_steer_queued' && e.payload.pendingInputId === 'in-prep',
        ),
      { timeoutMs: 10_000, what: 'the admission on the wire' },
    );
    const ticket = await kit.client.op(sid, 'await_ticket', {
      ticketId: 'in-prep',
      until: 'delivered',
      timeoutMs: 0,
    });
    expect(ticket).toMatchObject({ ok: true, state: 'accepted', lifecycle: 'preparing' });
    const interrupted = await kit.client.op(sid, 'interrupt', {});
    expect(interrupted).toMatchObject({
      ok: true,
      turnId: reply.ok ? reply.turnId : '',
      requeued: true,
    });
    kit.stack.worker.kill('SIGCONT');
    const done = await kit.client.op(
      sid,
      'await_ticket',
      { ticketId: 'in-prep', until: 'completed', timeoutMs: 30_000 },
      40_000,
    );
    expect(done).toMatchObject({
      ok: true,
      state: 'completed',
      status: 'complete',
      lifecycle: 'completed',
    });
    await waitUntil(() => follow.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 10_000,
      what: 'the turn on the wire',
    });
    const mine = follow.events.filter(
      (e) =>
        e.type === 'interrupt' ||
        e.type === 'turn_started' ||
        e.type === 'turn_complete' ||
        e.type === 'session_input_promoted' ||
        e.type === 'turn_steer_dispatch_changed',
    );
    expect(
      mine.map((e) => (e.type === 'turn_steer_dispatch_changed' ? e.payload.state : e.type)),
    ).toEqual([
      'interrupt',
      'queued',
      'reserved',
      'promoting',
      'session_input_promoted',
      'turn_started',
      'turn_complete',
    ]);
    expect(await kit.ledgerRow(sid, 'in-prep')).toMatchObject({ status: 'promoted' });
    const messages = await kit.stack.db
      .selectFrom('messages')
      .select(['id'])
      .where('session_id', '=', sid)
      .where('role', '=', 'user')
      .execute();
    expect(messages).toHaveLength(1);
    await follow.stop();
  });

  it('lanes and modes: auto-drain off holds the queue, followUp all commits the run as one batch', {
    timeout: 120_000,
  }, async () => {
    const { sid, follow, answer } = await kit.waitingTurn('in-go');
    const set = await kit.http('PUT', `/sessions/${sid}/queue/modes`, {
      followUpMode: 'all',
      autoDrain: false,
    });
    expect(set).toEqual({
      status: 200,
      json: { steeringMode: 'all', followUpMode: 'all', autoDrain: false, changed: true },
    });
    expect((await kit.http('PUT', `/sessions/${sid}/queue/modes`, {})).status).toBe(400);
    expect(
      (await kit.http('PUT', `/sessions/${sid}/queue/modes`, { followUpMode: 'some' })).status,
    ).toBe(400);
    // The lane is R12.2's name of the delivery; one that contradicts the delivery is refused.
    const contradicting = await kit.client.op(sid, 'prompt', {
      text: 'x',
      lane: 'steering',
      delivery: 'queue',
    });
    expect(contradicting).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    for (const id of ['in-a', 'in-b', 'in-c']) {
      expect(
        await kit.client.op(sid, 'prompt', { text: `follow ${id}`, inputId: id, lane: 'followUp' }),
      ).toMatchObject({ ok: true, delivery: 'queue' });
    }
    // A client that never submitted follows in-b's ticket as Server-Sent Events (R12.4).
    const ticketStream = fetch(`${kit.stack.gatewayUrl}/sessions/${sid}/tickets/in-b/events`).then(
      (r) => r.text(),
    );
    await answer('allow');
    await waitUntil(() => follow.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 10_000,
      what: 'the first turn',
    });
    // The projection shows the modes and the three still waiting; nothing starts by itself.
    const lastSeq = follow.events.at(-1)?.sequenceNumber ?? 0;
    let projection: Record<string, unknown> = {};
    await waitUntil(
      async () => {
        const r = await kit.http('GET', `/sessions/${sid}/projection`);
        projection = r.json.projection as Record<string, unknown>;
        return Number(r.json.asOfSeq) >= lastSeq;
      },
      { timeoutMs: 10_000, what: 'the projection' },
    );
    expect(projection.queueModes).toEqual({
      steeringMode: 'all',
      followUpMode: 'all',
      autoDrain: false,
    });
    expect(
      (projection.pendingSteerInputs as { pendingInputId: string }[]).map((i) => i.pendingInputId),
    ).toEqual(['in-a', 'in-b', 'in-c']);
    await new Promise((r) => setTimeout(r, 300));
    expect(follow.events.filter((e) => e.type === 'turn_started')).toHaveLength(1);

    expect(
      (await kit.http('PUT', `/sessions/${sid}/queue/modes`, { autoDrain: true })).json,
    ).toMatchObject({
      autoDrain: true,
      changed: true,
    });
    await waitUntil(() => follow.events.filter((e) => e.type === 'turn_complete').length === 2, {
      timeoutMs: 20_000,
      what: 'the batch turn',
    });
    const started = follow.events.filter((e) => e.type === 'turn_started');
    expect(started.map((e) => e.type === 'turn_started' && e.payload.inputId)).toEqual([
      'in-go',
      'in-a',
    ]);
    const drained = follow.events.find((e) => e.type === 'turn_steer_drained');
    expect(drained?.payload).toMatchObject({ pendingInputIds: ['in-b', 'in-c'] });
    const ticketFrames = (await ticketStream)
      .split('\n\n')
      .filter((f) => f.startsWith('event: ticket'))
      .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)?.[1] ?? 'null') as { state: string });
    expect(ticketFrames.map((t) => t.state)).toEqual(['accepted', 'delivered', 'completed']);
    expect(ticketFrames.at(-1)).toMatchObject({ status: 'complete', turnId: started[1]?.turnId });
    for (const id of ['in-a', 'in-b', 'in-c']) {
      expect(await kit.ledgerRow(sid, id)).toMatchObject({ status: 'promoted' });
    }
    await waitUntil(
      async () =>
        (
          await kit.stack.db
            .selectFrom('messages')
            .select('id')
            .where('session_id', '=', sid)
            .where('role', '=', 'user')
            .execute()
        ).length === 4,
      { timeoutMs: 10_000, what: 'four user messages' },
    );
    const texts = await kit.stack.db
      .selectFrom('parts')
      .innerJoin('messages', 'messages.id', 'parts.message_id')
      .select(['parts.data'])
      .where('parts.session_id', '=', sid)
      .where('messages.role', '=', 'user')
      .orderBy('messages.created_at')
      .execute();
    expect(JSON.stringify(texts)).toMatch(/go.*follow in-a.*follow in-b.*follow in-c/s);
    await follow.stop();
  });

  it('a /compact sent while a turn runs is queued and runs at the boundary in a turn of its own (R12.1, 0238)', {
    timeout: 120_000,
  }, async () => {
    // A prompt before the running one, so that the compaction has something to summarise.
    const { sid, follow, answer } = await kit.waitingTurn('in-go', [
      `first question ${'x'.repeat(400)}`,
    ]);
    const queued = await kit.client.op(sid, 'prompt', {
      text: '/compact keep the plan',
      inputId: 'in-compact',
    });
    expect(queued).toMatchObject({ ok: true, inputId: 'in-compact', delivery: 'queue' });
    expect(follow.events.some((e) => e.type === 'compact_started')).toBe(false);
    await answer('allow');
    const done = await kit.client.op(
      sid,
      'await_ticket',
      { ticketId: 'in-compact', until: 'completed', timeoutMs: 30_000 },
      40_000,
    );
    expect(done).toMatchObject({
      ok: true,
      state: 'completed',
      status: 'complete',
      lifecycle: 'completed',
    });
    // The ticket completes as the turn's end is appended; the follower sees it a little later.
    await waitUntil(
      () =>
        follow.events.some((e) => e.type === 'turn_complete' && e.payload.inputId === 'in-compact'),
      { timeoutMs: 10_000, what: "the command turn's end on the wire" },
    );
    // In order: the running turn ends, the command's turn starts on its promoted line, the
    // compaction runs inside it, and the turn ends.
    const marks = follow.events
      .filter(
        (e) =>
          (e.type === 'turn_started' && e.payload.inputId === 'in-compact') ||
          (e.type === 'turn_complete' && e.payload.inputId !== undefined) ||
          (e.type === 'session_input_promoted' && e.payload.pendingInputId === 'in-compact') ||
          e.type === 'compact_started' ||
          e.type === 'session_compacted',
      )
      .map((e) => (e.type === 'turn_complete' ? `turn_complete:${e.payload.inputId}` : e.type))
      .slice(1);
    expect(marks).toEqual([
      'turn_complete:in-go',
      'session_input_promoted',
      'turn_started',
      'compact_started',
      'session_compacted',
      'turn_complete:in-compact',
    ]);
    expect(await kit.ledgerRow(sid, 'in-compact')).toMatchObject({ status: 'promoted' });
    const line = await kit.stack.db
      .selectFrom('messages')
      .select(['data'])
      .where('session_id', '=', sid)
      .where('role', '=', 'user')
      .execute();
    expect(JSON.stringify(line)).toMatch(
      /"kind":"slash_command".*"providerVisibility":"hidden"|"providerVisibility":"hidden".*"kind":"slash_command"/,
    );
    await follow.stop();
  });
});
