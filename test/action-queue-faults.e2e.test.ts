import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionQueueKit, startActionQueueKit } from './action-queue-kit.ts';

/**
 * The action queue under bad input and a crash, on real processes (issue 11 "done when",
 * R12.3, R14.2, R14.3, docs/decisions/0235, 0237): every bad input is a typed error with the
 * ledger unchanged; a SIGKILL with inputs running, committing and queued leaves each ended
 * once, with the wire, the ledger and the transcript agreeing.
 */
let kit: ActionQueueKit;

beforeAll(async () => {
  kit = await startActionQueueKit('action-queue-faults-e2e');
}, 120_000);

afterAll(async () => {
  kit?.stack.worker.kill('SIGCONT');
  await kit?.stack.stop();
});

describe('bad input and a crash (R12.3, R14.2)', () => {
  it('twelve bad inputs and more: each a typed error, the ledger unchanged', {
    timeout: 120_000,
  }, async () => {
    const opened = await kit.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = kit.client.follow(sid, 0);
    // A turn that waits on its permission; one input promoted before it, two queued.
    expect(
      await kit.client.op(sid, 'prompt', { text: 'first', inputId: 'in-done', wait: true }, 30_000),
    ).toMatchObject({ ok: true, status: 'complete' });
    await kit.client.op(sid, 'prompt', { text: '[scenario:run_command] go', inputId: 'in-run' });
    await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 10_000,
      what: 'the permission request',
    });
    for (const id of ['in-q1', 'in-q2', 'in-gone']) {
      await kit.client.op(sid, 'prompt', { text: `waiting ${id}`, inputId: id });
    }
    expect(await kit.client.op(sid, 'remove_input', { inputId: 'in-gone' })).toMatchObject({
      ok: true,
    });
    const rows = async () =>
      kit.stack.db
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
      const reply = await kit.client.op(sid, op, body);
      expect(reply, what).toMatchObject({
        ok: false,
        error: { code, ...(detail === undefined ? {} : { detail }) },
      });
    }
    // Clearing an empty queue is a no-op, not an error (a second clear finds nothing).
    expect(await kit.client.op(sid, 'clear_inputs', {})).toEqual({
      ok: true,
      cleared: ['in-q1', 'in-q2'],
    });
    expect(await kit.client.op(sid, 'clear_inputs', {})).toEqual({ ok: true, cleared: [] });
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
      await kit.client.op(sid, 'answer_permission', {
        requestId: request.payload.requestId,
        decision: 'deny',
      });
    }
    await follow.stop();
  });

  it('a SIGKILL with inputs running, committing and queued: after takeover each ends once, and the wire says where', {
    timeout: 180_000,
  }, async () => {
    const { sid, follow, owner, answer } = await kit.waitingTurn('in-run');
    await kit.client.op(sid, 'prompt', { text: 'committing one', inputId: 'in-commit' });
    await kit.client.op(sid, 'prompt', { text: 'queued one', inputId: 'in-queued' });
    // The worker stops: the first turn ends on the wire, the next input is selected and
    // its message waits for the worker's commit (committing).
    kit.stack.worker.kill('SIGSTOP');
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
    await kit.stack.killRuntime(owner);
    kit.stack.worker.kill('SIGCONT');
    const after = await kit.client.op(
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
        (await Promise.all(ids.map((id) => kit.ledgerRow(sid, id)))).every(
          (r) => r !== undefined && r.status !== 'admitted',
        ),
      { timeoutMs: 10_000, what: 'a terminal row for every input' },
    );
    const status = Object.fromEntries(
      await Promise.all(ids.map(async (id) => [id, (await kit.ledgerRow(sid, id))?.status])),
    );
    const ofInput = (id: string) =>
      follow.events.filter(
        (e) =>
          ('pendingInputId' in e.payload && e.payload.pendingInputId === id) ||
          (e.type === 'turn_started' && e.payload.inputId === id),
      );
    const userTexts = async () =>
      JSON.stringify(
        await kit.stack.db
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
        const r = await kit.http('GET', `/sessions/${sid}/projection`);
        return (
          Number(r.json.asOfSeq) >= lastSeq &&
          (r.json.projection as { pendingSteerInputs: unknown[] }).pendingSteerInputs.length === 0
        );
      },
      { timeoutMs: 10_000, what: 'an empty queue in the projection' },
    );
    await follow.stop();
  });
});
