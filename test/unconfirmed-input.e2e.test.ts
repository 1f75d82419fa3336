import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: RuntimeStack;

beforeAll(async () => {
  // A short confirmation wait: three attempts of one second each before giving up.
  stack = await startRuntimeStack(
    { name: 'unconfirmed-input-e2e', runtimeEnv: { AW_CONFIRM_TIMEOUT_MS: '1000' } },
    ['ucA'],
  );
});

afterAll(async () => {
  stack.worker.kill('SIGCONT');
  await stack?.stop();
});

describe('a turn never runs on a user message that did not commit (issue 9)', () => {
  it('a worker that never confirms: the prompt is answered write_not_confirmed, the turn does not run, the frontend sees why', {
    timeout: 120_000,
  }, async () => {
    const { client } = stack;
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    // A first turn, so that the session row exists and only the message write is missing.
    expect(await client.op(sid, 'prompt', { text: 'hello', wait: true }, 30_000)).toMatchObject({
      ok: true,
      status: 'complete',
    });
    const follow = client.follow(sid, 0);

    stack.worker.kill('SIGSTOP');
    const reply = await client.op(
      sid,
      'prompt',
      { text: 'lost', inputId: 'in-lost', wait: true },
      60_000,
    );
    expect(reply).toMatchObject({
      ok: false,
      error: {
        code: 'write_not_confirmed',
        detail: { inputId: 'in-lost', failure: 'unconfirmed' },
      },
    });
    await waitUntil(
      () =>
        follow.events.some(
          (e) => e.type === 'turn_steer_discarded' && e.payload.pendingInputId === 'in-lost',
        ),
      { timeoutMs: 10_000, what: 'the discard on the wire' },
    );
    const ofLost = follow.events.filter(
      (e) =>
        (e.type === 'turn_steer_queued' || e.type === 'turn_steer_discarded') &&
        e.payload.pendingInputId === 'in-lost',
    );
    expect(
      ofLost.map((e) => (e.type === 'turn_steer_discarded' ? e.payload.reason : e.type)),
    ).toEqual(['turn_steer_queued', 'start_failed']);
    expect(
      follow.events.filter((e) => e.type === 'turn_started' && e.payload.inputId === 'in-lost'),
    ).toEqual([]);

    // Once the worker is back, the session goes on.
    stack.worker.kill('SIGCONT');
    expect(await client.op(sid, 'prompt', { text: 'again', wait: true }, 60_000)).toMatchObject({
      ok: true,
      status: 'complete',
    });
    await follow.stop();
  });
});
