import {
  isTransientEventType,
  type Names,
  parseSessionEvent,
  type SessionEvent,
} from '@agentwire/contracts';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { Context } from '@opentelemetry/api';
import { BusError } from './bus-error.ts';
import { eventHeaders } from './event-headers.ts';
import { BLOBS_HEADER, type BlobOffload, offloadBlobs } from './offload-blobs.ts';
import type { StreamPublisher } from './publish-pipeline.ts';
import { refusalOf } from './publish-refusal.ts';

/** Options of {@link publishEvent}. */
export interface PublishEventOptions {
  /**
   * The fence (R13): the stream sequence of the last message on the event's subject, 0 when
   * the subject has none. The broker rejects the publish when it differs. Omit only where
   * no single-writer guarantee is needed (tests, tools).
   */
  readonly expectedLastSubjectSequence?: number;
  /** Per-session sequence number of the previous non-transient event, 0 for none (`Aw-Prev-Seq`). */
  readonly previousDurableSequence: number;
  /** Trace context whose `traceparent` the message carries; the active context by default. */
  readonly traceContext?: Context;
  /** Milliseconds to wait for the broker's ack (default: the client's, 5 s). */
  readonly timeoutMs?: number;
  /**
   * The event was built by `createEvent` (schema-checked once at creation) and only
   * numbered since: skip the per-publish schema parse. The sequence number and transient
   * turn checks still run. Leave unset for events from outside the process.
   */
  readonly prevalidated?: boolean;
  /**
   * The bound on the message's body and where larger string fields go (docs/decisions/0162);
   * without it the body goes as it is.
   */
  readonly offload?: BlobOffload;
}

/** The outcome of {@link publishEvent}: a value, never a throw, for the three expected cases. */
export type PublishEventResult =
  /** Stored; `streamSequence` is the new last sequence of the subject (the next fence). */
  | { readonly kind: 'ok'; readonly streamSequence: number }
  /** The event id was already stored within the duplicate window; nothing was added. */
  | { readonly kind: 'duplicate'; readonly streamSequence: number }
  /** The fence did not match: another writer appended, or the subject was purged/expired. */
  | { readonly kind: 'fenced'; readonly actualLastSequence?: number };

/** JetStream API error code "wrong last sequence" (`JSStreamWrongLastSequenceErrF`). */
const WRONG_LAST_SEQUENCE = 10071;

/** The subject an event travels on: `tx.<turnId>` for the four transient types (R3.3), else `ev`. */
export function eventSubjectOf(n: Names, event: SessionEvent): string {
  if (!isTransientEventType(event.type)) return n.eventSubject(event.sessionId);
  if (event.turnId === null) {
    throw new BusError(`transient event ${event.id} (${event.type}) has no turnId (R3.3)`, {
      code: 'invalid_event',
    });
  }
  return n.transientSubject(event.sessionId, event.turnId);
}

/**
 * Publishes one numbered event (R5.1: only stored, numbered events leave) as validated JSON
 * with `Nats-Msg-Id` = event id and, when given, the expected-last-subject-sequence fence
 * (R13). See docs/decisions/0040-publish-fencing.md for how a runtime tracks the fence.
 * Throws {@link BusError} `invalid_event` for an event that fails its schema (unless
 * `prevalidated`), has no
 * sequence number or is transient without a turn, `publish_refused` for a message the
 * broker refused or the client could not send (over `max_payload`: nothing was stored), and
 * `publish_failed` for other errors (retryable: timeouts and connection loss). `js` is a `JetStreamClient` or, on hot
 * paths, a {@link PublishPipeline} (the runtime's appends).
 */
export async function publishEvent(
  js: StreamPublisher,
  n: Names,
  event: SessionEvent,
  options: PublishEventOptions,
): Promise<PublishEventResult> {
  const body = options.prevalidated === true ? event : validated(event);
  if (event.sequenceNumber < 1) {
    throw new BusError(`event ${event.id} has no sequence number (R2.2)`, {
      code: 'invalid_event',
    });
  }
  const subject = eventSubjectOf(n, event);
  const expect =
    options.expectedLastSubjectSequence === undefined
      ? {}
      : { expect: { lastSubjectSequence: options.expectedLastSubjectSequence } };
  const raw = JSON.stringify(body);
  // Most bodies are far under the bound: no extra await on the append path (0102).
  const { json, offloaded } =
    options.offload === undefined || raw.length * 3 <= options.offload.maxBytes
      ? { json: raw, offloaded: 0 }
      : await offloadBlobs(raw, options.offload);
  const headers = eventHeaders(event, options.previousDurableSequence, options.traceContext);
  if (offloaded > 0) headers.set(BLOBS_HEADER, String(offloaded));
  try {
    const ack = await js.publish(subject, json, {
      headers,
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      ...expect,
    });
    return ack.duplicate
      ? { kind: 'duplicate', streamSequence: ack.seq }
      : { kind: 'ok', streamSequence: ack.seq };
  } catch (error) {
    const fenced = asFenced(error);
    if (fenced !== null) return fenced;
    const refusal = refusalOf(error, json);
    if (refusal !== undefined) {
      throw new BusError(`event ${event.id} (${event.type}) on ${subject} ${refusal}`, {
        code: 'publish_refused',
        cause: error,
      });
    }
    throw new BusError(`publishing event ${event.id} on ${subject} failed`, {
      code: 'publish_failed',
      retryable:
        error instanceof BusError ? error.retryable : !(error instanceof JetStreamApiError),
      cause: error,
    });
  }
}

/** The event as its schema parses it; throws {@link BusError} `invalid_event` otherwise. */
function validated(event: SessionEvent): SessionEvent {
  const parsed = parseSessionEvent(event);
  if (!parsed.ok) {
    throw new BusError(`refusing to publish event ${event.id}: ${parsed.error.message}`, {
      code: 'invalid_event',
      cause: parsed.error,
    });
  }
  return parsed.event;
}

/** Maps a "wrong last sequence" rejection (10071) to a `fenced` result, else `null`. */
export function asFenced(error: unknown): { kind: 'fenced'; actualLastSequence?: number } | null {
  if (!(error instanceof JetStreamApiError) || error.code !== WRONG_LAST_SEQUENCE) return null;
  const match = /wrong last sequence: (\d+)/i.exec(error.apiError().description ?? error.message);
  return match?.[1] === undefined
    ? { kind: 'fenced' }
    : { kind: 'fenced', actualLastSequence: Number(match[1]) };
}
