import { RuntimeClient } from '@agentwire/bus';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `close` answers once the session is released (its lease given back): an `open` right after
 * the answer, which the queue group may hand to any runtime, takes it there, never
 * `lease_conflict` with the instance that just closed it. Two real runtime processes.
 */
let stack: RuntimeStack;
let runtimes: RuntimeClient;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'close-reopen' }, ['rtA', 'rtB']);
  runtimes = new RuntimeClient(stack.bus, stack.names, { timeoutMs: 15_000 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('close, then open at once (R16.6)', () => {
  it('reopens a closed session on whichever runtime the open reaches, every time', {
    timeout: 120_000,
  }, async () => {
    const opened = await runtimes.open();
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const sid = opened.sessionId;
    const first = await runtimes.prompt(sid, { text: 'hello', wait: true }, { timeoutMs: 30_000 });
    expect(first.ok, JSON.stringify(first)).toBe(true);
    const owners: string[] = [opened.owner];
    for (let i = 0; i < 30; i += 1) {
      const closed = await runtimes.close(sid);
      expect(closed.ok, JSON.stringify(closed)).toBe(true);
      const again = await runtimes.open(sid);
      expect(again, `open ${i} after close: ${JSON.stringify(again)}`).toMatchObject({
        ok: true,
        sessionId: sid,
      });
      if (again.ok) owners.push(again.owner);
    }
    // The queue group spread the opens: the session moved between the instances.
    expect(new Set(owners).size).toBe(2);
    const last = await runtimes.prompt(
      sid,
      { text: 'still here', wait: true },
      { timeoutMs: 30_000 },
    );
    expect(last.ok, JSON.stringify(last)).toBe(true);
  });
});
