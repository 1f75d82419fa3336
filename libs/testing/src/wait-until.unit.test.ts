import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitUntil } from './wait-until.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A promise's state without waiting for it. */
async function stateOf(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  const pending = Symbol('pending');
  return Promise.race([promise, pending]).then(
    (value) => (value === pending ? 'pending' : 'resolved'),
    () => 'rejected',
  );
}

describe('waitUntil', () => {
  it('resolves at once when the condition already holds, without a timer', async () => {
    await waitUntil(() => true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('checks every intervalMs and resolves on the first check that holds', async () => {
    let checks = 0;
    const done = waitUntil(() => ++checks === 4, { intervalMs: 50 });
    await vi.advanceTimersByTimeAsync(100);
    expect(checks).toBe(3);
    expect(await stateOf(done)).toBe('pending');
    await vi.advanceTimersByTimeAsync(50);
    expect(checks).toBe(4);
    expect(await stateOf(done)).toBe('resolved');
  });

  it('awaits an async check', async () => {
    let ready = false;
    const done = waitUntil(async () => ready);
    await vi.advanceTimersByTimeAsync(200);
    expect(await stateOf(done)).toBe('pending');
    ready = true;
    await vi.advanceTimersByTimeAsync(20);
    expect(await stateOf(done)).toBe('resolved');
  });

  it('rejects after timeoutMs with an error naming what it waited for and the timeout', async () => {
    const done = waitUntil(() => false, { timeoutMs: 1_000, intervalMs: 100, what: 'the peer' });
    const outcome = expect(done).rejects.toThrow('timed out after 1000 ms waiting for the peer');
    await vi.advanceTimersByTimeAsync(900);
    expect(await stateOf(done)).toBe('pending');
    await vi.advanceTimersByTimeAsync(200);
    await outcome;
  });

  it('defaults to a 10 s timeout', async () => {
    const done = waitUntil(() => false);
    const outcome = expect(done).rejects.toThrow('timed out after 10000 ms waiting for condition');
    await vi.advanceTimersByTimeAsync(9_980);
    expect(await stateOf(done)).toBe('pending');
    await vi.advanceTimersByTimeAsync(40);
    await outcome;
  });

  it('rejects with the error of a check that throws', async () => {
    await expect(
      waitUntil(() => {
        throw new Error('broken check');
      }),
    ).rejects.toThrow('broken check');
  });
});
