import type { SessionEvent } from '@agentwire/contracts';

/**
 * The event store port (R3.1): the single source of sequence numbers for live push, replay
 * and snapshots (R3.2). Numbers are per session, start at 1, only grow and are never
 * reused, even after eviction or deletion (R2.3, R3.6).
 *
 * Defined here until `@agentwire/contracts` carries it; adapters implement it as is.
 */
export interface SessionEventStore {
  /**
   * Appends an event created with `sequenceNumber` 0 (R2.2) and returns the stored copy
   * carrying the number the store assigned; only that copy may be published (R5.1).
   */
  append(event: SessionEvent): Promise<SessionEvent>;
  /** Every held event of the session, in number order. */
  readAll(sessionId: string): Promise<readonly SessionEvent[]>;
  /** Held events numbered above `afterSequenceNumber`, in order. */
  readAfter(sessionId: string, afterSequenceNumber: number): Promise<readonly SessionEvent[]>;
  /** The last number assigned in the session (0 before any append), evicted or not. */
  latestSequenceNumber(sessionId: string): Promise<number>;
  /** Drops the session's events; its numbering goes on where it stopped (R2.3). */
  deleteSession(sessionId: string): Promise<void>;
}

/** Stable codes of {@link EventStoreError}. */
export type EventStoreErrorCode = 'AW_EVENT_STORE_ALREADY_NUMBERED';

/** A programming error at the store boundary: the event is not appended. */
export class EventStoreError extends Error {
  override readonly name = 'EventStoreError';
  readonly code: EventStoreErrorCode;

  constructor(code: EventStoreErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
