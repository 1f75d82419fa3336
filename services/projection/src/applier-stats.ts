/** Counters read by the metrics endpoint (issue 5: lag, applied/s, gap naks, stuck). */
export interface ApplierStats {
  applied: number;
  duplicates: number;
  gapNaks: number;
  casConflicts: number;
  /** Two different events with one number (dead-lettered `sequence_conflict`). */
  sequenceConflicts: number;
  deadLettered: number;
  storeErrors: number;
  commits: number;
  /** Row reads, and those a commit notice or a periodic recheck caused (hand-over cost). */
  reads: number;
  readsOnNotice: number;
  readsOnRecheck: number;
  /** Milliseconds spent waiting for row reads and for compare-and-set writes (summed). */
  readMs: number;
  writeMs: number;
  /** Milliseconds from stream store to arrival in this instance (summed over deliveries). */
  pickupMs: number;
  accepted: number;
  /** Held deliveries of sessions another instance owns, acked on that owner's notice. */
  ackedForOwner: number;
  /** Store-to-commit lag of each applied event (ms), drained by the metrics reader. */
  lagMs: number[];
}

/** Fresh counters, all zero. */
export function createApplierStats(): ApplierStats {
  return {
    applied: 0,
    duplicates: 0,
    gapNaks: 0,
    casConflicts: 0,
    sequenceConflicts: 0,
    deadLettered: 0,
    storeErrors: 0,
    commits: 0,
    reads: 0,
    readsOnNotice: 0,
    readsOnRecheck: 0,
    readMs: 0,
    writeMs: 0,
    pickupMs: 0,
    accepted: 0,
    ackedForOwner: 0,
    lagMs: [],
  };
}
