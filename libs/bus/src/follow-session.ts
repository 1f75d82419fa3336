import {
  decodeSessionEvent,
  eventIdOfMessageId,
  HEADERS,
  type Names,
  NumberWitness,
  type SessionEvent,
} from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { BlobStore } from './blob-store.ts';
import { BusError } from './bus-error.ts';
import { headerSequence } from './event-headers.ts';
import { openConsumer, type StallWatch, watchForStall } from './follow-consumer.ts';
import { BLOBS_HEADER, resolveBlobs } from './offload-blobs.ts';
import { isFenceMarker } from './publish-fence.ts';

/** Options of {@link followSession}. */
export interface FollowSessionOptions {
  /**
   * The client's base (R15.1): the last per-session sequence number it has; 0 for all.
   * A base survives restarts of any service because it is the event's own number, not a
   * stream position or an epoch.
   */
  readonly afterSequence: number;
  readonly logger?: Logger;
  /**
   * Subscribes to the connection's reconnects (`BusConnection.onReconnect`): after one, the
   * follower recreates its consumer right after the last message it read, instead of waiting
   * for the client library to notice that a restarted broker forgot it (issue 9).
   */
  readonly reconnects?: (listener: () => void) => () => void;
  /**
   * Where offloaded fields are read back from (docs/decisions/0162): by default the
   * prefix's blob bucket, opened when a message first needs it.
   */
  readonly blobs?: BlobStore;
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
 * below the base. Events that fail to parse are logged and skipped, and so are writers'
 * fence markers (`Aw-Fence`, no event). Evicted transient events (R3.3) are simply absent.
 * A message with offloaded fields (`Aw-Blobs`) is yielded with them read back (0162).
 * A number met again with another event id ends the iteration with a `sequence_conflict`
 * {@link BusError} (two writers, which the fences of docs/decisions/0110 rule out).
 *
 * A base outside the retained window is not skipped over silently (R15.1,
 * docs/decisions/0103): every event's `Aw-Prev-Seq` names the session's previous
 * non-transient event, so when the next event after the last number the follower has (its
 * base, or the last event yielded) names a predecessor above that number, that predecessor
 * was not delivered. The follower reads the stretch again from the message before it, up to
 * three times (a consumer reset, or a just-restarted NATS 2.9 server, can deliver a filtered
 * consumer's messages with a hole); if the predecessor is still missing, the stream lost it
 * (age limit, purge) and the iteration throws a {@link BusError}
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
  const witness = new NumberWitness(RECENT_IDS);

  // Stream sequence of the last message read: where a recreated consumer starts (0 until
  // one was read: then the start follows the base as at first).
  let streamSequence = 0;
  let blobs: BlobStore | undefined;
  // The highest non-transient (`ev`) number met: every event's `Aw-Prev-Seq` names its
  // durable predecessor, so one naming a higher number shows that the predecessor was not
  // delivered. Either the consumer skipped it (a client consumer reset across a reconnect
  // drops what it had buffered; a NATS 2.9 server just restarted delivered a filtered
  // consumer's messages with a hole, its delivery sequence unbroken) or the stream lost it
  // (age limit, purge). The follower reads the stretch again, from the message before the
  // hole, up to MAX_REREADS times at one number; only a hole that stays is `base_expired`.
  let durableMet: number | undefined;
  let rereads = { at: -1, count: 0 };

  async function* run(): AsyncGenerator<SessionEvent> {
    while (!stopped) {
      const current = await openConsumer(js, n, sessionId, last, streamSequence, () => stopped);
      if (current === undefined) return;
      messages = current;
      // Recreated after a stall (docs/decisions/0144), or at once after a reconnect (issue 9).
      const watch = watchForStall(current, logger);
      const unlisten = options.reconnects?.(() => {
        watch.stalled = true;
        void current.close();
      });
      try {
        yield* read(current, watch);
      } catch (error) {
        if (!(error instanceof SkippedDurable) || stopped) throw error;
        // Read again from the message before the hole: stream order is number order, so the
        // missing event, if the stream holds it, comes next.
        logger.warn(
          { after: last, missing: error.missing, reread: rereads.count },
          'consumer skipped an event; reading again',
        );
        streamSequence = error.resumeAfter;
        await new Promise((resolve) => setTimeout(resolve, REREAD_PAUSE_MS * rereads.count));
        continue;
      } finally {
        unlisten?.();
      }
      if (!watch.stalled || stopped) return;
      logger.info({ after: last }, 'following on from a new consumer');
    }
  }

  async function* read(current: ConsumerMessages, watch: StallWatch): AsyncGenerator<SessionEvent> {
    try {
      for await (const m of current) {
        watch.alive();
        const before = streamSequence;
        streamSequence = m.seq;
        const event = accept(m, before);
        if (event !== undefined) yield m.headers?.has(BLOBS_HEADER) ? await resolved(event) : event;
      }
    } finally {
      await current.close();
    }
  }

  /**
   * The event to yield for one message, or `undefined` (a marker, a copy, garbage);
   * `before` is the stream sequence of the message read before it.
   */
  function accept(m: JsMsg, before: number): SessionEvent | undefined {
    if (isFenceMarker(m.headers)) return undefined;
    const hinted = headerSequence(m.headers);
    if (hinted !== undefined && hinted <= last) {
      const msgId = m.headers?.get(HEADERS.msgId);
      const id = msgId ? eventIdOfMessageId(msgId) : idInBody(m.data);
      checkNumber(witness, sessionId, hinted, id);
      return undefined;
    }
    const previous = headerPreviousSequence(m.headers);
    if (previous !== undefined && previous > (durableMet ?? met)) {
      if (rereads.at !== last) rereads = { at: last, count: 0 };
      if (rereads.count < MAX_REREADS) {
        rereads.count += 1;
        throw new SkippedDurable(previous, before);
      }
      // Still missing after every reread: the stream lost it (0103).
      throw expired(sessionId, last, previous, hinted ?? sequenceInBody(m.data));
    }
    if (hinted !== undefined && n.parseEventSubject(m.subject)?.turnId === null) {
      durableMet = Math.max(durableMet ?? 0, hinted);
    }
    if (hinted !== undefined) met = Math.max(met, hinted);
    const decoded = decodeSessionEvent(m.data);
    if (!decoded.ok) {
      logger.warn(
        { subject: m.subject, streamSequence: m.seq, err: decoded.error },
        'skipping invalid event',
      );
      return undefined;
    }
    const event = decoded.event;
    if (event.sessionId !== sessionId) return undefined;
    if (event.sequenceNumber <= last) {
      checkNumber(witness, sessionId, event.sequenceNumber, event.id);
      return undefined;
    }
    witness.see(event.sequenceNumber, event.id);
    last = event.sequenceNumber;
    met = Math.max(met, last);
    return event;
  }

  /** The event with its offloaded fields read back (0162); as it is if one is missing. */
  async function resolved(event: SessionEvent): Promise<SessionEvent> {
    blobs ??= options.blobs ?? BlobStore.reader(js, n);
    try {
      return await resolveBlobs(event, blobs);
    } catch (err) {
      logger.warn({ err, seq: event.sequenceNumber }, 'an offloaded field cannot be read back');
      return event;
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

/** How often a hole at one number is read again before it counts as the stream's. */
const MAX_REREADS = 3;
/** Pause before a reread, times the rereads so far (a restarted server settles). */
const REREAD_PAUSE_MS = 100;

/** The consumer delivered an event whose durable predecessor it did not deliver. */
class SkippedDurable extends Error {
  override readonly name = 'SkippedDurable';
  readonly missing: number;
  /** The stream sequence of the message read before the hole: reading resumes after it. */
  readonly resumeAfter: number;

  constructor(missing: number, resumeAfter: number) {
    super(`the consumer skipped durable event ${missing}`);
    this.missing = missing;
    this.resumeAfter = resumeAfter;
  }
}

/** How many of the latest numbers a follower remembers the event ids of. */
const RECENT_IDS = 4096;

/**
 * Throws `sequence_conflict` when `witness` knew `sequenceNumber` with another event id: two
 * events with one number (docs/decisions/0110), reported instead of dropped as a copy.
 */
function checkNumber(
  witness: NumberWitness,
  sessionId: string,
  sequenceNumber: number,
  id: string | undefined,
): void {
  if (id === undefined || id === '') return;
  const known = witness.see(sequenceNumber, id);
  if (known === undefined) return;
  throw new BusError(
    `session ${sessionId}: two different events carry number ${sequenceNumber} (${known}, ${id})`,
    { code: 'sequence_conflict', conflict: { sequenceNumber, eventIds: [known, id] } },
  );
}

/** Reads `Aw-Prev-Seq`; `undefined` when absent or not a non-negative integer. */
function headerPreviousSequence(h: MsgHdrs | undefined): number | undefined {
  const raw = h?.get(HEADERS.previousDurableSequence);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The body's event id, for a message whose `Nats-Msg-Id` is missing. */
function idInBody(data: Uint8Array): string | undefined {
  const decoded = decodeSessionEvent(data);
  return decoded.ok ? decoded.event.id : undefined;
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
