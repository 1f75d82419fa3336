import { StoreError } from '@agentwire/store';
import { describe, expect, it } from 'vitest';
import { retryStoreCall } from './retry-store-call.ts';

/** A fake clock that the fake sleep advances. */
function clock() {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    slept,
  };
}

const cut = () =>
  new StoreError('Connection terminated unexpectedly', {
    classification: { retryable: true, kind: 'connection' },
  });

/** A call that fails with `errors` in turn, then answers `value`. */
function failing<T>(errors: Error[], value: T) {
  let calls = 0;
  return {
    call: async () => {
      calls += 1;
      const error = errors.shift();
      if (error !== undefined) throw error;
      return value;
    },
    calls: () => calls,
  };
}

describe('retryStoreCall (issue 9, item 5)', () => {
  it('retries retryable failures with growing delays and returns the answer', async () => {
    const c = clock();
    const f = failing([cut(), cut(), cut()], 'ok');
    const retries: number[] = [];
    const result = await retryStoreCall(f.call, {
      budgetMs: 10_000,
      ...c,
      onRetry: (_e, attempt) => retries.push(attempt),
    });
    expect(result).toBe('ok');
    expect(f.calls()).toBe(4);
    expect(retries).toEqual([1, 2, 3]);
    expect(c.slept.every((ms, i) => ms >= 50 * 2 ** i && ms <= 1_000)).toBe(true);
  });

  it('gives up with the last failure once the budget is spent', async () => {
    const c = clock();
    const f = failing(Array.from({ length: 100 }, cut), 'never');
    await expect(retryStoreCall(f.call, { budgetMs: 3_000, ...c })).rejects.toThrow(
      'Connection terminated unexpectedly',
    );
    expect(c.now()).toBeLessThanOrEqual(3_000);
    expect(f.calls()).toBeGreaterThan(2);
  });

  it('does not retry a failure that is not retryable, nor with no budget', async () => {
    const c = clock();
    const bad = failing(
      [
        new StoreError('duplicate key', {
          classification: { retryable: false, kind: 'constraint', code: '23505' },
        }),
      ],
      'x',
    );
    await expect(retryStoreCall(bad.call, { budgetMs: 10_000, ...c })).rejects.toThrow(
      'duplicate key',
    );
    const once = failing([cut()], 'x');
    await expect(retryStoreCall(once.call, { budgetMs: 0, ...c })).rejects.toThrow();
    expect([bad.calls(), once.calls()]).toEqual([1, 1]);
  });
});
