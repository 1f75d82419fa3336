import type { Delivery } from './delivery.ts';
import { SessionQueue } from './session-queue.ts';

/** A session's row as the applier last knew it: its projection and last sequence. */
export interface KnownRow<P> {
  projection: P | undefined;
  last: number;
}

/** What {@link ProjectionApplier} keeps per session. */
export interface SessionState<P> {
  readonly queue: SessionQueue<Delivery>;
  /** The row as this instance last knew it; `undefined` = read it before use. */
  known: KnownRow<P> | undefined;
  running: boolean;
  again: boolean;
  /** Since when the session waits for a predecessor; cleared by progress. */
  waitingSince: number | undefined;
  lastCheck: number;
  lastActive: number;
  /** Why the session cannot progress, once known (a dead-lettered predecessor). */
  blockedBy: { seq: number; code: string } | undefined;
  reportedStuck: boolean;
  /** Highest last sequence other writers announced; above `known.last`, the cache is stale. */
  noticed: number;
}

/** The state of a session first seen at `now`: nothing held, row not read yet. */
export function createSessionState<P>(now: number): SessionState<P> {
  return {
    queue: new SessionQueue<Delivery>((d) => d.event.id),
    known: undefined,
    running: false,
    again: false,
    waitingSince: undefined,
    lastCheck: 0,
    lastActive: now,
    blockedBy: undefined,
    reportedStuck: false,
    noticed: 0,
  };
}
