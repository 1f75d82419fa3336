/** The event store port (SPEC.md R3.1-R3.6). */
import type { SessionEvent } from '../session-event.ts';

/**
 * The event store: the single source of per-session sequence numbers for live push,
 * replay and snapshots (R3.2). Numbers start at 1, only grow and are never reused, even
 * after eviction or deletion (R2.3, R3.6). Implementations may evict transient events of
 * sealed and superseded turns (R3.3-R3.5), so reads may show holes in the numbering.
 */
export interface SessionEventStore {
  /**
   * Appends an event created with `sequenceNumber` 0 (R2.2) and returns it with the number
   * the store assigned; only the returned event may be published (R5.1).
   */
  append(event: SessionEvent): Promise<SessionEvent>;
  /** Every retained event of the session, in sequence order. */
  readAll(sessionId: string): Promise<readonly SessionEvent[]>;
  /** Retained events with a sequence number greater than `afterSequenceNumber`, in order. */
  readAfter(sessionId: string, afterSequenceNumber: number): Promise<readonly SessionEvent[]>;
  /** The last number assigned in the session (0 when none), evicted events included. */
  latestSequenceNumber(sessionId: string): Promise<number>;
  /** Deletes the session's events; its numbers are still never reused (R2.3). */
  deleteSession(sessionId: string): Promise<void>;
}
