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
    ['aqA', 'aqB'],
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

/**
 * A new session whose first turn waits on its permission request, followed from 0;
 * `answer` answers that request.
 */
async function waitingTurn(inputId: string) {
  const opened = await client.open();
  if (!opened.ok) throw new Error(opened.error.message);
  const sid = String(opened.sessionId);
  const follow = client.follow(sid, 0);
  await client.op(sid, 'prompt', { text: '[scenario:run_command] go', inputId });
  await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
    timeoutMs: 10_000,
    what: 'the permission request',
  });
  const answer = async (decision: 'allow' | 'deny') => {
    const request = follow.events.find((e) => e.type === 'permission_requested');
    if (request?.type !== 'permission_requested') throw new Error('no permission request');
    await client.op(sid, 'answer_permission', { requestId: request.payload.requestId, decision });
  };
  return { sid, follow, opened, answer };
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
    const { sid, follow, answer } = await waitingTurn('in-go');
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
    // A client that never submitted follows in-b's ticket as Server-Sent Events (R12.4).
    const ticketStream = fetch(`${stack.gatewayUrl}/sessions/${sid}/tickets/in-b/events`).then(
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
    const ticketFrames = (await ticketStream)
      .split('\n\n')
      .filter((f) => f.startsWith('event: ticket'))
      .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)?.[1] ?? 'null') as { state: string });
    expect(ticketFrames.map((t) => t.state)).toEqual(['accepted', 'delivered', 'completed']);
    expect(ticketFrames.at(-1)).toMatchObject({ status: 'complete', turnId: started[1]?.turnId });
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

  it('twelve bad inputs and more: each a typed error, the ledger unchanged', {
    timeout: 120_000,
  }, async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    // A turn that waits on its permission; one input promoted before it, two queued.
    expect(
      await client.op(sid, 'prompt', { text: 'first', inputId: 'in-done', wait: true }, 30_000),
    ).toMatchObject({ ok: true, status: 'complete' });
    await client.op(sid, 'prompt', { text: '[scenario:run_command] go', inputId: 'in-run' });
    await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 10_000,
      what: 'the permission request',
    });
    for (const id of ['in-q1', 'in-q2', 'in-gone']) {
      await client.op(sid, 'prompt', { text: `waiting ${id}`, inputId: id });
    }
    expect(await client.op(sid, 'remove_input', { inputId: 'in-gone' })).toMatchObject({
      ok: true,
    });
    const rows = async () =>
      stack.db
        .selectFrom('session_inputs')
        .select(['id', 'status', 'status_reason', 'delivery'])
        .where('session_id', '=', sid)
        .orderBy('id')
        .execute();
    await waitUntil(async () => (await rows()).length === 5, {
      timeoutMs: 10_000,
      what: 'five ledger rows',
    });
    await waitUntil(
      async () => (await rows()).some((r) => r.id === 'in-gone' && r.status === 'cancelled'),
      { timeoutMs: 10_000, what: 'the removal in the ledger' },
    );
    const before = await rows();
    const big = 'x'.repeat(64 * 1024 + 1);
    const cases: [string, string, unknown, string, Record<string, unknown>?][] = [
      [
        'unknown slash command',
        'prompt',
        { text: '/deploy now' },
        'unknown_command',
        { command: 'deploy' },
      ],
      [
        'edit of a promoted input',
        'edit_input',
        { inputId: 'in-done', text: 'x' },
        'input_not_pending',
        { state: 'completed' },
      ],
      [
        'move out of range',
        'move_input',
        { inputId: 'in-q1', position: 9 },
        'position_out_of_range',
        { position: 9, size: 2 },
      ],
      [
        'reorder with unknown ids',
        'reorder_inputs',
        { orderedInputIds: ['in-q2', 'nope'] },
        'input_not_pending',
        { inputId: 'nope' },
      ],
      [
        'delete twice',
        'remove_input',
        { inputId: 'in-gone' },
        'illegal_transition',
        { from: 'cancelled', to: 'cancelled' },
      ],
      ['empty input', 'prompt', { text: '   ' }, 'empty_input'],
      [
        'input over the size limit',
        'prompt',
        { text: big },
        'prompt_too_large',
        { limit: 64 * 1024 },
      ],
      [
        'a ticket that does not exist',
        'await_ticket',
        { ticketId: 'in-never', until: 'delivered', timeoutMs: 0 },
        'unknown_ticket',
        { ticketId: 'in-never' },
      ],
      [
        'an illegal transition through the API: remove a running input',
        'remove_input',
        { inputId: 'in-run' },
        'illegal_transition',
        { from: 'running', to: 'cancelled' },
      ],
      [
        'a path outside the workspace',
        'prompt',
        { text: 'read @../../etc/passwd' },
        'invalid_file_reference',
        { reason: 'outside_workspace' },
      ],
      [
        'a malformed @file reference',
        'prompt',
        { text: 'read @"never closed' },
        'invalid_file_reference',
        { reason: 'malformed' },
      ],
      [
        'a template that does not exist',
        'prompt',
        { text: '/nosuchtemplate args' },
        'unknown_command',
        { command: 'nosuchtemplate' },
      ],
      [
        'a lane that contradicts the delivery',
        'prompt',
        { text: 'x', lane: 'followUp', delivery: 'guide' },
        'invalid_request',
      ],
      ['queue modes with nothing to set', 'set_queue_modes', {}, 'invalid_request'],
      [
        'a guide with a stale turn',
        'prompt',
        { text: 'x', delivery: 'guide', expectedTurnId: 'turn_old' },
        'expected_turn_mismatch',
      ],
    ];
    for (const [what, op, body, code, detail] of cases) {
      const reply = await client.op(sid, op, body);
      expect(reply, what).toMatchObject({
        ok: false,
        error: { code, ...(detail === undefined ? {} : { detail }) },
      });
    }
    // Clearing an empty queue is a no-op, not an error (a second clear finds nothing).
    expect(await client.op(sid, 'clear_inputs', {})).toEqual({
      ok: true,
      cleared: ['in-q1', 'in-q2'],
    });
    expect(await client.op(sid, 'clear_inputs', {})).toEqual({ ok: true, cleared: [] });
    // The worker applies commands in order: once the clears show, anything the bad inputs
    // wrote would show too.
    await waitUntil(
      async () => (await rows()).filter((r) => r.status_reason === 'user_cleared').length === 2,
      { timeoutMs: 10_000, what: 'the clear in the ledger' },
    );
    const after = await rows();
    const cleared = new Set(['in-q1', 'in-q2']);
    expect(after.filter((r) => !cleared.has(r.id))).toEqual(
      before.filter((r) => !cleared.has(r.id)),
    );
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
    const request = follow.events.find((e) => e.type === 'permission_requested');
    if (request?.type === 'permission_requested') {
      await client.op(sid, 'answer_permission', {
        requestId: request.payload.requestId,
        decision: 'deny',
      });
    }
    await follow.stop();
  });

  it('a SIGKILL with inputs running, committing and queued: after takeover each ends once, and the wire says where', {
    timeout: 180_000,
  }, async () => {
    const { sid, follow, opened, answer } = await waitingTurn('in-run');
    await client.op(sid, 'prompt', { text: 'committing one', inputId: 'in-commit' });
    await client.op(sid, 'prompt', { text: 'queued one', inputId: 'in-queued' });
    // The worker stops: the first turn ends on the wire, the next input is selected and
    // its message waits for the worker's commit (committing).
    stack.worker.kill('SIGSTOP');
    await answer('allow');
    await waitUntil(
      () =>
        follow.events.some(
          (e) =>
            e.type === 'turn_steer_dispatch_changed' &&
            e.payload.pendingInputId === 'in-commit' &&
            e.payload.state === 'promoting',
        ),
      { timeoutMs: 10_000, what: 'in-commit promoting' },
    );
    await stack.killRuntime(String(opened.owner));
    stack.worker.kill('SIGCONT');
    const after = await client.op(
      sid,
      'prompt',
      { text: 'after the crash', inputId: 'in-after', wait: true },
      60_000,
    );
    expect(after).toMatchObject({ ok: true, status: 'complete' });
    await waitUntil(
      () =>
        follow.events.some((e) => e.type === 'turn_complete' && e.payload.inputId === 'in-after'),
      { timeoutMs: 10_000, what: "the last turn's end on the wire" },
    );
    const ids = ['in-run', 'in-commit', 'in-queued', 'in-after'];
    await waitUntil(
      async () =>
        (await Promise.all(ids.map((id) => ledgerRow(sid, id)))).every(
          (r) => r !== undefined && r.status !== 'admitted',
        ),
      { timeoutMs: 10_000, what: 'a terminal row for every input' },
    );
    const status = Object.fromEntries(
      await Promise.all(ids.map(async (id) => [id, (await ledgerRow(sid, id))?.status])),
    );
    const ofInput = (id: string) =>
      follow.events.filter(
        (e) =>
          ('pendingInputId' in e.payload && e.payload.pendingInputId === id) ||
          (e.type === 'turn_started' && e.payload.inputId === id),
      );
    const userTexts = async () =>
      JSON.stringify(
        await stack.db
          .selectFrom('parts')
          .innerJoin('messages', 'messages.id', 'parts.message_id')
          .select(['parts.data'])
          .where('parts.session_id', '=', sid)
          .where('messages.role', '=', 'user')
          .execute(),
      );
    // The running one ran once; the queued one is discarded(session_resumed).
    expect(status['in-run']).toBe('promoted');
    expect(status['in-queued']).toBe('discarded');
    expect(
      ofInput('in-queued').map((e) =>
        e.type === 'turn_steer_discarded' ? e.payload.reason : e.type,
      ),
    ).toEqual(['turn_steer_queued', 'session_resumed']);
    // The committing one: its message reached the transcript or it did not, and the wire
    // says the same as the ledger. Its turn never ran, before or after the takeover.
    const committing = ofInput('in-commit').map((e) => e.type);
    expect(committing).not.toContain('turn_started');
    if (status['in-commit'] === 'promoted') {
      expect(committing.at(-1)).toBe('session_input_promoted');
      expect(committing).not.toContain('turn_steer_discarded');
      expect(await userTexts()).toContain('committing one');
      // The next turn's model saw it: it is in the conversation.
      const lastRequest = follow.events.filter((e) => e.type === 'model_request').at(-1);
      expect(JSON.stringify(lastRequest?.payload)).toContain('committing one');
    } else {
      expect(status['in-commit']).toBe('discarded');
      expect(committing.at(-1)).toBe('turn_steer_discarded');
      expect(await userTexts()).not.toContain('committing one');
    }
    for (const id of ids) {
      expect(ofInput(id).filter((e) => e.type === 'turn_started').length).toBeLessThanOrEqual(1);
    }
    // Frontends see the queue empty.
    const lastSeq = follow.events.at(-1)?.sequenceNumber ?? 0;
    await waitUntil(
      async () => {
        const r = await http('GET', `/sessions/${sid}/projection`);
        return (
          Number(r.json.asOfSeq) >= lastSeq &&
          (r.json.projection as { pendingSteerInputs: unknown[] }).pendingSteerInputs.length === 0
        );
      },
      { timeoutMs: 10_000, what: 'an empty queue in the projection' },
    );
    await follow.stop();
  });

  it('a /compact sent while a turn runs is queued and runs at the boundary in a turn of its own (R12.1, 0238)', {
    timeout: 120_000,
  }, async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    expect(
      await client.op(
        sid,
        'prompt',
        { text: `first question ${'x'.repeat(400)}`, wait: true },
        30_000,
      ),
    ).toMatchObject({ ok: true, status: 'complete' });
    await client.op(sid, 'prompt', { text: '[scenario:run_command] go', inputId: 'in-go' });
    await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 10_000,
      what: 'the permission request',
    });
    const queued = await client.op(sid, 'prompt', {
      text: '/compact keep the plan',
      inputId: 'in-compact',
    });
    expect(queued).toMatchObject({ ok: true, inputId: 'in-compact', delivery: 'queue' });
    expect(follow.events.some((e) => e.type === 'compact_started')).toBe(false);
    const request = follow.events.find((e) => e.type === 'permission_requested');
    if (request?.type !== 'permission_requested') throw new Error('no permission request');
    await client.op(sid, 'answer_permission', {
      requestId: request.payload.requestId,
      decision: 'allow',
    });
    const done = await client.op(
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
    expect(await ledgerRow(sid, 'in-compact')).toMatchObject({ status: 'promoted' });
    const line = await stack.db
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
