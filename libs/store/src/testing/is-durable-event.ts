import { isDurableEventType, type SessionEvent } from '@agentwire/contracts';
import type { DurableEvent } from '../durable-events.ts';

/** Whether R6 writes this event (every other type is acked untouched). */
export function isDurableEvent(event: SessionEvent): event is DurableEvent {
  return isDurableEventType(event.type);
}
