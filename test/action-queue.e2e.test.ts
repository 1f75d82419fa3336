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
});
