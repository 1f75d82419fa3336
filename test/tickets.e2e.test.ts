import { RuntimeClient } from '@agentwire/bus';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Tickets against real runtime processes (issue 11 item 5, R12.4, docs/decisions/0226): a
 * third client that never submitted awaits another client's `delivered` and `completed`,
 * with the owner SIGKILLed between the two.
 */
let stack: RuntimeStack;
let client: WireDriver;

beforeAll(async () => {
  stack = await startRuntimeStack(
    { name: 'tickets-e2e', projection: true, runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000' } },
    ['rtA', 'rtB'],
  );
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('tickets (R12.4)', () => {
  it("a third client awaits another client's ticket: delivered, then completed across a SIGKILL", async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    const ticketOf = (ticketId: string, until: string, timeoutMs: number) =>
      client.op(sid, 'await_ticket', { ticketId, until, timeoutMs }, timeoutMs + 20_000);
    // The submitter: a turn that waits on its permission, and an input queued behind it.
    const first = await client.op(sid, 'prompt', {
      text: '[scenario:run_command] go',
      inputId: 'in-first',
    });
    expect(first).toMatchObject({ ok: true, inputId: 'in-first' });
    await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
      what: 'the permission request',
    });
    const queued = await client.op(sid, 'prompt', { text: 'later', inputId: 'in-later' });
    expect(queued).toMatchObject({ ok: true, inputId: 'in-later', delivery: 'queue' });
    // The third client.
    expect(await ticketOf('in-first', 'delivered', 10_000)).toMatchObject({
      ok: true,
      state: 'delivered',
      timedOut: false,
    });
    expect(await ticketOf('in-later', 'delivered', 200)).toMatchObject({
      ok: true,
      state: 'accepted',
      timedOut: true,
    });
    await stack.killRuntime(String(opened.owner));
    // The next owner reads both tickets back from the stream: the lost turn completed with
    // an error (runtime_lost), and the queued input was discarded at the takeover.
    const completed = await ticketOf('in-first', 'completed', 30_000);
    expect(completed).toMatchObject({ ok: true, state: 'completed', status: 'error' });
    expect(await ticketOf('in-later', 'completed', 10_000)).toMatchObject({
      ok: true,
      state: 'discarded',
      reason: 'session_resumed',
    });
    // A ticket of a turn that ran on this owner carries the turn's events.
    const next = await client.op(sid, 'prompt', { text: 'hello again', inputId: 'in-next' });
    expect(next).toMatchObject({ ok: true, inputId: 'in-next' });
    const done = await ticketOf('in-next', 'completed', 30_000);
    expect(done).toMatchObject({ ok: true, state: 'completed', status: 'complete' });
    const events = (done as unknown as { events: { type: string }[] }).events;
    expect(events[0]?.type).toBe('turn_started');
    expect(events.at(-1)?.type).toBe('turn_complete');
    // Through the client library (the gateway's and the CLI's): R1.1's turn result adds the
    // projection once it applied the turn's last event.
    const library = new RuntimeClient(stack.bus, stack.names);
    const result = await library.awaitTicket(sid, 'in-next', 'completed', 10_000);
    if (!result.ok) throw new Error(result.error.message);
    const lastSeq = Math.max(...(result.events ?? []).map((e) => e.sequenceNumber));
    expect(result.projectionAsOfSeq).toBeGreaterThanOrEqual(lastSeq);
    expect(result.projection).toMatchObject({ id: sid, status: 'idle', currentTurnId: null });
    expect((result.projection as { turnCount: number }).turnCount).toBeGreaterThanOrEqual(2);
    expect(await ticketOf('in-nothing', 'delivered', 100)).toMatchObject({
      ok: false,
      error: { code: 'unknown_ticket' },
    });
    await follow.stop();
  });
});
