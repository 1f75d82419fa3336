/** The event factory of R2.2: every event starts with `sequenceNumber` 0. */
import type { EventPayload } from './event-payloads.ts';
import type { EventType } from './event-types.ts';
import { parseSessionEventOrThrow } from './parse-session-event.ts';
import type { SessionEventOf } from './session-event.ts';

/** What {@link createEvent} needs; ids, time and trace come from the caller. */
export interface CreateEventInput<T extends EventType> {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string | null;
  readonly type: T;
  readonly payload: EventPayload<T>;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  /** W3C trace id (32 lowercase hex). */
  readonly traceId: string;
}

/**
 * Creates an event with `sequenceNumber` 0 (R2.2); the event store assigns the real number
 * on append. Validates envelope and payload and throws an `EventParseError` when either is
 * wrong: a bad event is a bug at its emit site, not an expected outcome.
 */
export function createEvent<T extends EventType>(input: CreateEventInput<T>): SessionEventOf<T> {
  const event = parseSessionEventOrThrow({
    id: input.id,
    sessionId: input.sessionId,
    turnId: input.turnId,
    type: input.type,
    timestamp: input.timestamp,
    traceId: input.traceId,
    sequenceNumber: 0,
    payload: input.payload,
  });
  return event as SessionEventOf<T>;
}
