import type { SessionEvent } from '../session-event.ts';

/** Returns the event with the sequence number the store assigned (R2.2, R3.2). */
export function withSequenceNumber<E extends SessionEvent>(event: E, sequenceNumber: number): E {
  return { ...event, sequenceNumber };
}
