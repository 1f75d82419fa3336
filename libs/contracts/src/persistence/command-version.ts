/**
 * The version rule of persistence commands (DESIGN.md: "a per-row version so that a late or
 * repeated write never overwrites a newer one"). See docs/decisions/0011.
 */

/**
 * What the store does with a versioned write.
 *
 * @internal Exported for its tests.
 */
export type VersionDecision = 'apply' | 'duplicate' | 'stale';

/**
 * Decides a versioned upsert of one row (a message or a part): a write is applied only
 * when its version is greater than the stored one (or the row does not exist); an equal
 * version is a duplicate and a lower one is stale, and both leave the row untouched.

 *
 * @internal Exported for its tests.
 */
export function decideVersionedWrite(
  storedVersion: number | undefined,
  incomingVersion: number,
): VersionDecision {
  if (storedVersion === undefined || incomingVersion > storedVersion) return 'apply';
  return incomingVersion === storedVersion ? 'duplicate' : 'stale';
}

/**
 * The next version a writer should use: `max(last + 1, now)`. Growing with the clock keeps
 * versions increasing across a change of session owner (R13) without shared state; the
 * `last + 1` floor keeps them strictly increasing within one owner. `now` is epoch ms.
 */
export function nextCommandVersion(lastVersion: number | undefined, now: number): number {
  return Math.max((lastVersion ?? 0) + 1, Math.trunc(now));
}
