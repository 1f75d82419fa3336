import {
  decodeSessionEvent,
  eventIdOfMessageId,
  HEADERS,
  isDurableEventType,
  isEventType,
  type Names,
  type SessionEvent,
} from '@agentwire/contracts';
import type { DurableEvent } from '@agentwire/store';
import type { JsMsg } from '@nats-io/jetstream';
import { type Decoded, invalid } from './decoded-message.ts';
import type { EventItem } from './event-item.ts';

/** What the event decoder needs to know. */
export interface DecodeEventOptions {
  readonly maxMessageBytes: number;
  /** The names the subjects are parsed with. */
  readonly names: Names;
}

/** A canonical positive decimal integer (no sign, no leading zero, no exponent). */
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/**
 * Decodes a message from a session's `ev` subject (DESIGN.md flow 2). Cheap first: a known
 * non-durable `Aw-Type` header is not parsed (R6: the worker writes no rows for it) but
 * becomes a `mark` from the `Aw-Seq` header and the subject's session, which raises the
 * session's durable high-water mark (docs/decisions/0036); a bad `Aw-Seq` or subject is
 * invalid input, and a missing `Aw-Seq` falls back to the body. A durable type is parsed
 * fully (envelope, type, payload) and cross-checked: the session id in the subject, the
 * `Aw-Type` and `Aw-Seq` headers and the body must agree, and the sequence number must be
 * the store-assigned one (>= 1, R2.2).
 */
export function decodeEventMessage(msg: JsMsg, options: DecodeEventOptions): Decoded<EventItem> {
  const headerType = msg.headers?.get(HEADERS.eventType) ?? '';
  if (headerType !== '') {
    if (!isEventType(headerType)) {
      return invalid(
        'unknown_event_type',
        `unknown event type ${JSON.stringify(headerType)} in the ${HEADERS.eventType} header`,
      );
    }
    if (!isDurableEventType(headerType)) {
      const fromHeaders = markFromHeaders(msg, options.names);
      if (fromHeaders !== undefined) return fromHeaders;
    }
  }
  if (msg.data.length > options.maxMessageBytes) {
    return invalid(
      'oversized',
      `message of ${msg.data.length} bytes exceeds the limit of ${options.maxMessageBytes} bytes`,
    );
  }
  const parsed = decodeSessionEvent(msg.data);
  if (!parsed.ok) return invalid(parsed.error.code, parsed.error.message);
  const event = parsed.event;
  if (headerType !== '' && headerType !== event.type) {
    return invalid(
      'header_mismatch',
      `${HEADERS.eventType} header says ${headerType} but the body is ${event.type}`,
    );
  }
  const problem = envelopeProblem(msg, event, options.names);
  if (problem !== undefined) return problem;
  if (!isDurableEventType(event.type)) {
    return {
      kind: 'apply',
      value: {
        kind: 'mark',
        sessionId: event.sessionId,
        sequence: event.sequenceNumber,
        eventId: event.id,
      },
    };
  }
  return { kind: 'apply', value: { kind: 'event', event: event as DurableEvent } };
}

/**
 * The mark of a non-durable event from its headers and subject alone; `undefined` when it
 * carries no `Aw-Seq` header (the body must be read).
 */
function markFromHeaders(msg: JsMsg, names: Names): Decoded<EventItem> | undefined {
  const raw = msg.headers?.get(HEADERS.sequence) ?? '';
  if (raw === '') return undefined;
  const sequence = Number(raw);
  if (!POSITIVE_INTEGER.test(raw) || !Number.isSafeInteger(sequence)) {
    return invalid(
      'invalid_header',
      `${HEADERS.sequence} header ${JSON.stringify(raw)} is not a positive integer (R2.2)`,
    );
  }
  const sessionId = names.parseEventSubject(msg.subject)?.sessionId;
  if (sessionId === undefined) {
    return invalid('subject_mismatch', `subject ${msg.subject} names no valid session`);
  }
  const msgId = msg.headers?.get(HEADERS.msgId) ?? '';
  return {
    kind: 'apply',
    value: {
      kind: 'mark',
      sessionId,
      sequence,
      ...(msgId === '' ? {} : { eventId: eventIdOfMessageId(msgId) }),
    },
  };
}

/** What is wrong with a parsed event given its subject and `Aw-Seq` header, if anything. */
function envelopeProblem(
  msg: JsMsg,
  event: SessionEvent,
  names: Names,
): Decoded<never> | undefined {
  const subjectSession = names.parseEventSubject(msg.subject)?.sessionId;
  if (subjectSession !== event.sessionId) {
    return invalid(
      'subject_mismatch',
      `subject ${msg.subject} names session ${JSON.stringify(subjectSession)} but the event's sessionId is ${JSON.stringify(event.sessionId)}`,
    );
  }
  if (event.sequenceNumber < 1) {
    return invalid(
      'invalid_envelope',
      `sequenceNumber ${event.sequenceNumber}: a published event carries its store-assigned number (>= 1, R2.2)`,
    );
  }
  const headerSeq = msg.headers?.get(HEADERS.sequence) ?? '';
  if (headerSeq !== '' && Number(headerSeq) !== event.sequenceNumber) {
    return invalid(
      'header_mismatch',
      `${HEADERS.sequence} header says ${headerSeq} but the body's sequenceNumber is ${event.sequenceNumber}`,
    );
  }
  return undefined;
}
