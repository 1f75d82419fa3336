/**
 * The README's usage example, type-checked with the package (not exported).
 */
import { createEvent } from './create-event.ts';
import { decodeSessionEvent, encodeSessionEvent } from './parse-session-event.ts';
import type { SessionEvent } from './session-event.ts';

/** Creates, encodes, decodes and narrows an event; returns a one-line summary. */
export function example(now: number): string {
  // 1. Create an event: sequenceNumber is 0 until the store assigns one (R2.2).
  const event = createEvent({
    id: 'evt-1',
    sessionId: 'session-1',
    turnId: 'turn-1',
    type: 'turn_started',
    payload: { turnNumber: 1, input: 'fix the flaky test' },
    timestamp: now,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  });

  // 2. At a boundary, decode bytes; failures are values with a stable code (R4.1).
  const decoded = decodeSessionEvent(encodeSessionEvent(event));
  if (!decoded.ok) return `${decoded.error.code}: ${decoded.error.message}`;

  // 3. Narrow the payload by type.
  return describe(decoded.event);
}

function describe(event: SessionEvent): string {
  switch (event.type) {
    case 'turn_started':
      return `turn ${event.payload.turnNumber}: ${event.payload.input}`;
    case 'turn_complete':
      return `turn done: ${event.payload.resultType}`;
    default:
      return event.type;
  }
}
