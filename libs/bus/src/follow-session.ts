import { decodeSessionEvent, HEADERS, type Names, type SessionEvent } from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import {
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { BusError } from './bus-error.ts';
import { headerSequence } from './event-headers.ts';
import { lastSessionSequence } from './session-state.ts';

const STREAM_NOT_FOUND = 10059;

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

/**
 * A live replay-then-tail of one session; iterate it once. The iteration ends with a
 * `base_expired` {@link BusError} when the base lies outside the retained window (see
 * {@link followSession}).
 */
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
 *
 * A base outside the retained window is not skipped over silently (R15.1,
 * docs/decisions/0103): every event's `Aw-Prev-Seq` names the session's previous
 * non-transient event, so when the next event after the last number the follower has (its
 * base, or the last event yielded) names a predecessor above that number, the stream lost
 * that predecessor (age limit, purge) and the iteration throws a {@link BusError}
 * `base_expired` whose `expiredBase` holds the numbers (`isBaseExpired`). The caller
 * resynchronises from a snapshot (the projection, `asOfSeq`) and follows anew from there.
 * This holds when the session has no message left at all: the next event it publishes
 * carries the chain on. Holes of evicted transient events are not gaps.
 */
export function followSession(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
  options: FollowSessionOptions,
): SessionFollower {
  const logger = (options.logger ?? noopLogger).child({ component: 'follow-session', sessionId });
  let last = options.afterSequence;
  // The highest number met on the stream after the base, yielded or not (an event that fails
  // to parse is still a link of the chain: not having it is no gap of the stream's).
  let met = last;
  let stopped = false;
  let messages: ConsumerMessages | undefined;
  // Stream sequence of the last message read: where a consumer recreated after a stall
  // starts (0 until one was read: then the start follows the base as at first).
  let streamSequence = 0;

  async function* run(): AsyncGenerator<SessionEvent> {
    while (!stopped) {
      messages = await openConsumer(js, n, sessionId, last, streamSequence, () => stopped);
      if (messages === undefined) return;
      const watch = watchForStall(messages, logger);
      yield* read(messages, watch);
      if (!watch.stalled) return;
    }
  }

  async function* read(current: ConsumerMessages, watch: StallWatch): AsyncGenerator<SessionEvent> {
    try {
      for await (const m of current) {
        watch.alive();
        streamSequence = m.seq;
        const hinted = headerSequence(m.headers);
        if (hinted !== undefined && hinted <= last) continue;
        const previous = headerPreviousSequence(m.headers);
        if (previous !== undefined && previous > met) {
          throw expired(sessionId, last, previous, hinted ?? sequenceInBody(m.data));
        }
        if (hinted !== undefined) met = Math.max(met, hinted);
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
        met = Math.max(met, last);
        yield event;
      }
    } finally {
      await current.close();
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

/** Pull expiry of the follower's consumer: the server sends a heartbeat every half of it. */
const FOLLOW_EXPIRES_MS = 5_000;
/** Silence (no message, no heartbeat) after which the consumer counts as lost. */
const STALL_MS = 3 * (FOLLOW_EXPIRES_MS / 2);
const RETRY_MS = 250;

/**
 * Creates the ordered consumer and starts consuming, from `streamSequence + 1` when a
 * message was read already, else from the base. Retries while JetStream cannot answer
 * (a cluster electing a leader, a client reconnecting) until `stopped()`; a missing stream
 * is thrown.
 */
async function openConsumer(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
  afterSequence: number,
  streamSequence: number,
  stopped: () => boolean,
): Promise<ConsumerMessages | undefined> {
  for (;;) {
    try {
      const start =
        streamSequence > 0
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: streamSequence + 1 }
          : await startOptions(js, n, sessionId, afterSequence);
      const consumer = await js.consumers.get(n.eventsStream, {
        filter_subjects: n.sessionFilter(sessionId),
        ...start,
      });
      if (stopped()) return undefined;
      return await consumer.consume({ max_messages: 256, expires: FOLLOW_EXPIRES_MS });
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) throw error;
      if (refused(error)) throw error; // a permission violation does not go away
      if (stopped()) return undefined;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/** Whether a consumer was given up as stalled, and the clock of its last sign of life. */
interface StallWatch {
  stalled: boolean;
  alive(): void;
}

/**
 * Closes `messages` when neither a message nor a heartbeat came for {@link STALL_MS}: the
 * client's ordered consumer does not always come back by itself when its server dies
 * (nats.js 3.4 retries a consumer info against the dead node, heartbeat monitor off, for as
 * long as the node is down, and sometimes for good), so the follower recreates it from its
 * last stream sequence (docs/decisions/0144).
 */
function watchForStall(messages: ConsumerMessages, logger: Logger): StallWatch {
  let last = Date.now();
  const watch: StallWatch = {
    stalled: false,
    alive: () => {
      last = Date.now();
    },
  };
  const timer = setInterval(() => {
    if (Date.now() - last < STALL_MS) return;
    logger.warn({ silentMs: Date.now() - last }, 'follower consumer stalled; recreating it');
    watch.stalled = true;
    clearInterval(timer);
    void messages.close();
  }, 1_000);
  timer.unref();
  void messages.closed().finally(() => clearInterval(timer));
  void (async () => {
    for await (const status of messages.status()) if (status.type === 'heartbeat') watch.alive();
  })().catch(() => undefined);
  return watch;
}

/** Whether `error` (or its cause) is the server refusing this user the subject. */
function refused(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.name === 'PermissionViolationError') return true;
  }
  return false;
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

/** Reads `Aw-Prev-Seq`; `undefined` when absent or not a non-negative integer. */
function headerPreviousSequence(h: MsgHdrs | undefined): number | undefined {
  const raw = h?.get(HEADERS.previousDurableSequence);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The body's `sequenceNumber` of a message without `Aw-Seq`, or -1 when unreadable. */
function sequenceInBody(data: Uint8Array): number {
  const decoded = decodeSessionEvent(data);
  return decoded.ok ? decoded.event.sequenceNumber : -1;
}

function expired(
  sessionId: string,
  afterSequence: number,
  missingSequence: number,
  firstAvailableSequence: number,
): BusError {
  return new BusError(
    `session ${sessionId}: base ${afterSequence} is outside the retained window ` +
      `(event ${missingSequence} is gone; the first retained one after it is ${firstAvailableSequence})`,
    {
      code: 'base_expired',
      expiredBase: { afterSequence, missingSequence, firstAvailableSequence },
    },
  );
}
