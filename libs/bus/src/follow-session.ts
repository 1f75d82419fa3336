import { decodeSessionEvent, type Names, type SessionEvent } from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import {
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import { headerSequence } from './event-headers.ts';
import { lastSessionSequence } from './session-state.ts';

/** Options of {@link followSession}. */
export interface FollowSessionOptions {
  /**
   * The client's base (R15.1): the last per-session sequence number it has; 0 for all.
   * A base survives restarts of any service because it is the event's own number, not a
   * stream position or an epoch.
   */
  readonly afterSequence: number;
  readonly logger?: Logger;
}

/** A live replay-then-tail of one session; iterate it once. */
export interface SessionFollower extends AsyncIterable<SessionEvent> {
  /** The sequence number of the last event yielded (the base to resume from). */
  readonly lastSequence: number;
  /** Ends the iteration and deletes the ordered consumer. */
  stop(): Promise<void>;
}

/**
 * Follows a session (R15.1, DESIGN.md "A frontend follows a session"): replays every
 * retained event with a sequence number above `afterSequence`, then keeps tailing, yielding
 * each event once and in per-session order (live and replay see the same numbers, R2.2).
 *
 * It reads with an ordered consumer filtered on the session (`<p>.session.<sid>.>`), which
 * the client recreates from its cursor after any disconnect. The starting point: when the
 * session's last stored message is at or below the base, the consumer starts right after
 * that message's stream sequence (no replay at all); otherwise it replays the session's
 * retained messages and skips, by the `Aw-Seq` header and without parsing, those at or
 * below the base. Events that fail to parse are logged and skipped. Evicted transient
 * events (R3.3) are simply absent.
 */
export function followSession(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
  options: FollowSessionOptions,
): SessionFollower {
  const logger = (options.logger ?? noopLogger).child({ component: 'follow-session', sessionId });
  let last = options.afterSequence;
  let stopped = false;
  let messages: ConsumerMessages | undefined;

  async function* run(): AsyncGenerator<SessionEvent> {
    const consumer = await js.consumers.get(n.eventsStream, {
      filter_subjects: n.sessionFilter(sessionId),
      ...(await startOptions(js, n, sessionId, last)),
    });
    if (stopped) return;
    messages = await consumer.consume({ max_messages: 256 });
    try {
      for await (const m of messages) {
        const hinted = headerSequence(m.headers);
        if (hinted !== undefined && hinted <= last) continue;
        const decoded = decodeSessionEvent(m.data);
        if (!decoded.ok) {
          logger.warn(
            { subject: m.subject, streamSequence: m.seq, err: decoded.error },
            'skipping invalid event',
          );
          continue;
        }
        const event = decoded.event;
        if (event.sessionId !== sessionId || event.sequenceNumber <= last) continue;
        last = event.sequenceNumber;
        yield event;
      }
    } finally {
      await messages.close();
    }
  }

  const iterable = run();
  return {
    get lastSequence() {
      return last;
    },
    [Symbol.asyncIterator]: () => iterable,
    async stop() {
      stopped = true;
      await messages?.close();
    },
  };
}

async function startOptions(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
  afterSequence: number,
): Promise<Partial<OrderedConsumerOptions>> {
  if (afterSequence > 0) {
    const jsm = await js.jetstreamManager(false);
    const tip = await lastSessionSequence(jsm, n, sessionId);
    if (tip !== null && tip.sequenceNumber <= afterSequence) {
      return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: tip.streamSequence + 1 };
    }
  }
  return { deliver_policy: DeliverPolicy.All };
}
