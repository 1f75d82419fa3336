import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The action queue's lifecycle and scheduler on real processes (issue 11 items 2-4, R12.2,
 * R12.3, R12.5, docs/decisions/0235): an input interrupted while it prepares is re-queued
 * and runs next, once; dispatch is reported on the wire; the ledger and the transcript
 * hold it once.
 */
let stack: RuntimeStack;
let client: WireDriver;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'action-queue-e2e',
      projection: true,
      gateway: true,
      runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000', AW_CONFIRM_TIMEOUT_MS: '20000' },
    },
    ['aqA'],
  );
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  stack?.worker.kill('SIGCONT');
  await stack?.stop();
});

async function http(method: string, route: string, body?: unknown) {
  const res = await fetch(`${stack.gatewayUrl}${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function ledgerRow(sid: string, inputId: string) {
  return stack.db
    .selectFrom('session_inputs')
    .select(['id', 'status', 'status_reason'])
    .where('session_id', '=', sid)
    .where('id', '=', inputId)
    .executeTakeFirst();
}

describe('the action lifecycle (R12.3, R12.5)', () => {
  it('an interrupt while the first input prepares re-queues it; it runs next, once', {
    timeout: 120_000,
  }, async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    // The session row is born with the first prompt and its preparation waits for the
    // worker's confirmation of it: a stopped worker holds the input in `preparing`.
    stack.worker.kill('SIGSTOP');
    const reply = await client.op(sid, 'prompt', { text: 'hello there', inputId: 'in-prep' });
    expect(reply).toMatchObject({ ok: true, inputId: 'in-prep', delivery: 'startNow' });
    await waitUntil(
      () =>
        follow.events.some(
          (e) => e.type === 'turn_steer_queued' && e.payload.pendingInputId === 'in-prep',
        ),
      { timeoutMs: 10_000, what: 'the admission on the wire' },
    );
    const ticket = await client.op(sid, 'await_ticket', {
      ticketId: 'in-prep',
      until: 'delivered',
      timeoutMs: 0,
    });
    expect(ticket).toMatchObject({ ok: true, state: 'accepted', lifecycle: 'preparing' });
    const interrupted = await client.op(sid, 'interrupt', {});
    expect(interrupted).toMatchObject({
      ok: true,
      turnId: reply.ok ? reply.turnId : '',
      requeued: true,
    });
    stack.worker.kill('SIGCONT');
    const done = await client.op(
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
    expect(await ledgerRow(sid, 'in-prep')).toMatchObject({ status: 'promoted' });
    const messages = await stack.db
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
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    await client.op(sid, 'prompt', { text: '[scenario:run_command] go', inputId: 'in-go' });
    await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 10_000,
      what: 'the permission request',
    });
    const set = await http('PUT', `/sessions/${sid}/queue/modes`, {
      followUpMode: 'all',
      autoDrain: false,
    });
    expect(set).toEqual({
      status: 200,
      json: { steeringMode: 'all', followUpMode: 'all', autoDrain: false, changed: true },
    });
    expect((await http('PUT', `/sessions/${sid}/queue/modes`, {})).status).toBe(400);
    expect(
      (await http('PUT', `/sessions/${sid}/queue/modes`, { followUpMode: 'some' })).status,
    ).toBe(400);
    // The lane is R12.2's name of the delivery; one that contradicts the delivery is refused.
    const contradicting = await client.op(sid, 'prompt', {
      text: 'x',
      lane: 'steering',
      delivery: 'queue',
    });
    expect(contradicting).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    for (const id of ['in-a', 'in-b', 'in-c']) {
      expect(
        await client.op(sid, 'prompt', { text: `follow ${id}`, inputId: id, lane: 'followUp' }),
      ).toMatchObject({ ok: true, delivery: 'queue' });
    }
    const request = follow.events.find((e) => e.type === 'permission_requested');
    if (request?.type !== 'permission_requested') throw new Error('no permission request');
    await client.op(sid, 'answer_permission', {
      requestId: request.payload.requestId,
      decision: 'allow',
    });
    await waitUntil(() => follow.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 10_000,
      what: 'the first turn',
    });
    // The projection shows the modes and the three still waiting; nothing starts by itself.
    const lastSeq = follow.events.at(-1)?.sequenceNumber ?? 0;
    let projection: Record<string, unknown> = {};
    await waitUntil(
      async () => {
        const r = await http('GET', `/sessions/${sid}/projection`);
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
      (await http('PUT', `/sessions/${sid}/queue/modes`, { autoDrain: true })).json,
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
    for (const id of ['in-a', 'in-b', 'in-c']) {
      expect(await ledgerRow(sid, id)).toMatchObject({ status: 'promoted' });
    }
    await waitUntil(
      async () =>
        (
          await stack.db
            .selectFrom('messages')
            .select('id')
            .where('session_id', '=', sid)
            .where('role', '=', 'user')
            .execute()
        ).length === 4,
      { timeoutMs: 10_000, what: 'four user messages' },
    );
    const texts = await stack.db
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
});
