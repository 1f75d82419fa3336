import { decodeSessionEvent, HEADERS, isDurableEventType, isEventType } from '@agentwire/contracts';
import type { DurableEvent } from '@agentwire/store';
import type { JsMsg } from '@nats-io/jetstream';
import { type Decoded, invalid } from './decoded-message.ts';

/** What the event decoder needs to know. */
export interface DecodeEventOptions {
  readonly maxMessageBytes: number;
}

/**
 * Decodes a message from a session's `ev` subject (DESIGN.md flow 2). Cheap first: a known
 * non-durable `Aw-Type` header is skipped without reading the body (R6: every other type
 * is acked untouched). A durable type is then parsed fully (envelope, type, payload) and
 * cross-checked: the session id in the subject, the `Aw-Type` and `Aw-Seq` headers and the
 * body must agree, and the sequence number must be the store-assigned one (>= 1, R2.2).
 */
export function decodeEventMessage(msg: JsMsg, options: DecodeEventOptions): Decoded<DurableEvent> {
  const headerType = msg.headers?.get(HEADERS.eventType) ?? '';
  if (headerType !== '') {
    if (!isEventType(headerType)) {
      return invalid(
        'unknown_event_type',
        `unknown event type ${JSON.stringify(headerType)} in the ${HEADERS.eventType} header`,
      );
    }
    if (!isDurableEventType(headerType)) return { kind: 'skip', why: `not durable: ${headerType}` };
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
  if (!isDurableEventType(event.type)) {
    if (headerType === '') return { kind: 'skip', why: `not durable: ${event.type}` };
    return invalid(
      'header_mismatch',
      `${HEADERS.eventType} header says ${headerType} but the body is ${event.type}`,
    );
  }
  if (headerType !== '' && headerType !== event.type) {
    return invalid(
      'header_mismatch',
      `${HEADERS.eventType} header says ${headerType} but the body is ${event.type}`,
    );
  }
  const subjectSession = sessionOfSubject(msg.subject);
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
  return { kind: 'apply', value: event as DurableEvent };
}

/** The session token of `<prefix>.session.<sid>.ev` (or of `<prefix>.persist.<sid>`). */
export function sessionOfSubject(subject: string): string | undefined {
  const tokens = subject.split('.');
  if (tokens[1] === 'session' && tokens.length >= 4) return tokens[2];
  if (tokens[1] === 'persist' && tokens.length === 3) return tokens[2];
  return undefined;
}
