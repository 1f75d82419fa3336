import {
  createEvent,
  type EventPayload,
  type EventType,
  type SessionEvent,
  type SessionEventOf,
} from '@agentwire/contracts';
import type { EventAppender } from './event-appender.ts';
import type { IdSource, RuntimeClock } from './ports.ts';

/**
 * Creates events with the factory of R2.2 (number 0, validated payload) and sends each
 * through `appendEvent` (R5); resolves with the numbered event.
 */
export class SessionEmitter {
  readonly sessionId: string;
  readonly appender: EventAppender;
  readonly #clock: RuntimeClock;
  readonly #ids: IdSource;

  constructor(sessionId: string, appender: EventAppender, clock: RuntimeClock, ids: IdSource) {
    this.sessionId = sessionId;
    this.appender = appender;
    this.#clock = clock;
    this.#ids = ids;
  }

  /** Emits one event of `type` in `turnId` (null for session-level events). */
  emit<T extends EventType>(
    type: T,
    turnId: string | null,
    traceId: string,
    payload: EventPayload<T>,
  ): Promise<SessionEventOf<T>> {
    const event = createEvent({
      id: this.#ids.newId('evt'),
      sessionId: this.sessionId,
      turnId,
      type,
      payload,
      timestamp: this.#clock.now(),
      traceId,
    });
    return this.appender.append(event as SessionEvent) as Promise<SessionEventOf<T>>;
  }
}
