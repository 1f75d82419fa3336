/**
 * Delay before the next attempt after the `deliveryCount`-th failed one (a redelivery, a
 * retried write): exponential from `baseMs`, capped at `maxMs`, with full jitter in its
 * upper half so that competing workers do not retry in lock-step. `random` comes from outside (STYLE.md "Time, ids and randomness").
 */
export function backoffMs(
  deliveryCount: number,
  random: () => number = Math.random,
  baseMs = 200,
  maxMs = 5_000,
): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, deliveryCount - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}
