import { backoffMs } from '@agentwire/service';
import { isRetryableStoreError } from './title-store.ts';

/** How a store call of the sidecar is retried (issue 9, item 5). */
export interface StoreRetryOptions {
  /** How long after the first attempt a retryable failure may still be retried; 0: never. */
  readonly budgetMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Called before each retry (the sidecar logs it). */
  readonly onRetry?: ((error: unknown, attempt: number, delayMs: number) => void) | undefined;
}

/**
 * Runs `call`, and again after a retryable failure (a Postgres restart cuts the connection:
 * `Connection terminated unexpectedly`, 57P01, ECONNREFUSED) with backoff from 100 ms to 1 s,
 * while the next attempt would still start within `budgetMs` of the first. The last failure,
 * or any failure that is not retryable, is thrown. The title's compare-and-set is idempotent
 * (a repeat of an applied write changes nothing), so a write that committed before its
 * connection was cut is safe to send again.
 */
export async function retryStoreCall<T>(call: () => Promise<T>, o: StoreRetryOptions): Promise<T> {
  const deadline = o.now() + o.budgetMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const delayMs = backoffMs(attempt, Math.random, 100, 1_000);
      if (!isRetryableStoreError(error) || o.now() + delayMs > deadline) throw error;
      o.onRetry?.(error, attempt, delayMs);
      await o.sleep(delayMs);
    }
  }
}
