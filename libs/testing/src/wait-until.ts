/** Options of {@link waitUntil}. */
export interface WaitUntilOptions {
  /** How long to keep checking before giving up (default 10 000 ms). */
  readonly timeoutMs?: number;
  /** The pause between two checks (default 20 ms). */
  readonly intervalMs?: number;
  /** What is awaited, for the error message (default `condition`). */
  readonly what?: string;
}

/**
 * Resolves as soon as `check` returns true, checking every `intervalMs`: the way a test
 * waits for a condition instead of sleeping for a duration. Checks once more after
 * `timeoutMs` has passed, then rejects with an Error naming `what` and the timeout.
 *
 * @example
 * await waitUntil(() => events.some((e) => e.type === 'turn_complete'), {
 *   timeoutMs: 5_000,
 *   what: 'the turn to complete',
 * });
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  options: WaitUntilOptions = {},
): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 20, what = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
