/** Options of the resident pool (R11.1, R16.6). */
export interface ResidencyOptions {
  /** Sessions the LRU phase evicts down to (integer >= 0). */
  readonly target: number;
  /** Above this many residents the LRU phase runs (integer >= target). */
  readonly highWater: number;
  /** An eligible session idle this long may be reclaimed (ms, >= 0). */
  readonly idleTimeoutMs: number;
}

/**
 * The defaults of R11.1: target 8, high water 16, idle 10 minutes.
 *
 * @internal Exported for its tests.
 */
export const DEFAULT_RESIDENCY_OPTIONS: ResidencyOptions = {
  target: 8,
  highWater: 16,
  idleTimeoutMs: 10 * 60 * 1000,
};

/** Outcome of {@link resolveResidencyOptions}. */
export type ResidencyOptionsResult =
  | { readonly ok: true; readonly options: ResidencyOptions }
  | {
      readonly ok: false;
      readonly field: keyof ResidencyOptions;
      readonly reason: string;
    };

/**
 * Fills defaults and validates (R16.6): target an integer >= 0, high water an integer >=
 * target, idle timeout a finite number >= 0. Invalid values are rejected at start.
 */
export function resolveResidencyOptions(
  input: Partial<ResidencyOptions> = {},
): ResidencyOptionsResult {
  const options: ResidencyOptions = { ...DEFAULT_RESIDENCY_OPTIONS, ...input };
  const { target, highWater, idleTimeoutMs } = options;
  if (!Number.isInteger(target) || target < 0) {
    return { ok: false, field: 'target', reason: `must be an integer >= 0, got ${target}` };
  }
  if (!Number.isInteger(highWater) || highWater < target) {
    return {
      ok: false,
      field: 'highWater',
      reason: `must be an integer >= target (${target}), got ${highWater}`,
    };
  }
  if (!Number.isFinite(idleTimeoutMs) || idleTimeoutMs < 0) {
    return { ok: false, field: 'idleTimeoutMs', reason: `must be >= 0, got ${idleTimeoutMs}` };
  }
  return { ok: true, options };
}
