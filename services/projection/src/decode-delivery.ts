import { decodeSessionEvent, HEADERS, type Names, type SessionEvent } from '@agentwire/contracts';

/** A bus message as {@link decodeDelivery} needs it (a JetStream message fits). */
export interface RawDelivery {
  readonly subject: string;
  readonly data: Uint8Array;
  header(name: string): string | undefined;
}

/** The outcome of decoding: the event and its predecessor number, or why it is refused. */
export type DecodedDelivery =
  | { readonly ok: true; readonly event: SessionEvent; readonly prev: number }
  | {
      readonly ok: false;
      /** Stable code for the dead-letter header (`invalid_payload`, `missing_prev_seq`, ...). */
      readonly code: string;
      readonly reason: string;
      /** The session the subject names, so that a refused event still marks its session. */
      readonly sessionId: string | undefined;
      /** The `Aw-Seq` header, when readable. */
      readonly seq: number | undefined;
    };

function headerNumber(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Decodes one message of `<prefix>.session.<sid>.ev` (DESIGN.md flow 3): parses the event
 * against its schema (R4.1) and checks the ordering headers (R2.2): `Aw-Prev-Seq` present,
 * below the event's number, and `Aw-Seq` and the subject's session agreeing with the body.
 * Never throws; a refusal carries the reason the dead letter will show.
 */
export function decodeDelivery(raw: RawDelivery, names: Names): DecodedDelivery {
  const subject = names.parseEventSubject(raw.subject);
  const sessionId = subject?.turnId === null ? subject.sessionId : undefined;
  const headerSeq = headerNumber(raw.header(HEADERS.sequence));
  const refuse = (code: string, reason: string): DecodedDelivery => ({
    ok: false,
    code,
    reason,
    sessionId,
    seq: headerSeq,
  });
  const parsed = decodeSessionEvent(raw.data);
  if (!parsed.ok) return refuse(parsed.error.code, parsed.error.message);
  const event = parsed.event;
  if (sessionId !== event.sessionId) {
    return refuse(
      'envelope_mismatch',
      `subject ${raw.subject} does not carry session ${event.sessionId}`,
    );
  }
  if (event.sequenceNumber < 1)
    return refuse('unnumbered_event', `event ${event.id} has no sequence number (R2.2)`);
  if (headerSeq !== undefined && headerSeq !== event.sequenceNumber) {
    return refuse(
      'envelope_mismatch',
      `${HEADERS.sequence} ${headerSeq} differs from sequenceNumber ${event.sequenceNumber}`,
    );
  }
  const prev = headerNumber(raw.header(HEADERS.previousDurableSequence));
  if (prev === undefined) {
    return refuse(
      'missing_prev_seq',
      `${HEADERS.previousDurableSequence} header missing or not a number`,
    );
  }
  if (prev >= event.sequenceNumber) {
    return refuse(
      'invalid_prev_seq',
      `${HEADERS.previousDurableSequence} ${prev} is not below sequenceNumber ${event.sequenceNumber}`,
    );
  }
  return { ok: true, event, prev };
}
