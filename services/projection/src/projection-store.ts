/** A stored projection and the last sequence number applied to it (R10.2). */
export interface StoredProjection {
  readonly projection: unknown;
  readonly lastSequence: number;
}

/**
 * One compare-and-set write (DESIGN.md flow 3): store `projection` at `lastSequence` only if
 * the row's `last_sequence` still equals `expected` (`0`: only if there is no row yet).
 */
export interface CasWrite {
  readonly sessionId: string;
  readonly expected: number;
  readonly projection: unknown;
  readonly lastSequence: number;
}

/** The projection's persistence port: `session_projections` read and compare-and-set. */
export interface ProjectionStore {
  /** The stored row, or `undefined` when the session has none. */
  get(sessionId: string): Promise<StoredProjection | undefined>;
  /** Rows of several sessions at once (rebuild). */
  getMany(sessionIds: readonly string[]): Promise<Map<string, StoredProjection>>;
  /**
   * Applies every write whose expectation holds, atomically per row, in one round trip,
   * and returns the ids of the sessions written; a missing id lost the race.
   */
  compareAndSet(writes: readonly CasWrite[]): Promise<Set<string>>;
}

/**
 * An in-memory {@link ProjectionStore} with the same compare-and-set semantics as the
 * Postgres one: for unit tests and property tests of competing appliers.

 *
 * @internal Exported for its tests.
 */
export class MemoryProjectionStore implements ProjectionStore {
  readonly rows = new Map<string, StoredProjection>();
  /** Number of compare-and-set calls (each a "round trip"). */
  roundTrips = 0;

  async get(sessionId: string): Promise<StoredProjection | undefined> {
    return this.rows.get(sessionId);
  }

  async getMany(sessionIds: readonly string[]): Promise<Map<string, StoredProjection>> {
    const out = new Map<string, StoredProjection>();
    for (const id of sessionIds) {
      const row = this.rows.get(id);
      if (row !== undefined) out.set(id, row);
    }
    return out;
  }

  async compareAndSet(writes: readonly CasWrite[]): Promise<Set<string>> {
    this.roundTrips += 1;
    const written = new Set<string>();
    for (const w of writes) {
      const current = this.rows.get(w.sessionId)?.lastSequence ?? 0;
      if (current !== w.expected) continue;
      this.rows.set(w.sessionId, {
        projection: structuredClone(w.projection),
        lastSequence: w.lastSequence,
      });
      written.add(w.sessionId);
    }
    return written;
  }
}
