import { HEADERS, type Names } from '@agentwire/contracts';
import { JetStreamApiError, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';

/** Where a session's stream currently ends. */
export interface SessionPosition {
  /** The per-session sequence number (R2.2) of the last retained message. */
  readonly sequenceNumber: number;
  /** Its stream sequence. */
  readonly streamSequence: number;
  /** Its subject (`ev` or `tx.<turnId>`). */
  readonly subject: string;
}

const NO_MESSAGE_FOUND = 10037;

/** The last stored message on `subject` (wildcards allowed), or `null` when there is none. */
export async function lastMessageOn(
  jsm: JetStreamManager,
  stream: string,
  subject: string,
): Promise<StoredMsg | null> {
  try {
    return await jsm.streams.getMessage(stream, { last_by_subj: subject });
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === NO_MESSAGE_FOUND) return null;
    throw error;
  }
}

/**
 * The session's last retained message across its `ev` and `tx` subjects (DESIGN.md flow 5,
 * via get-message `last_by_subj` on the session filter), or `null`. A cold-recovering
 * runtime continues numbering after the larger of this and its durable high-water mark
 * (R2.3: the stream's age limit may have dropped the true last message).
 */
export async function lastSessionSequence(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<SessionPosition | null> {
  const msg = await lastMessageOn(jsm, n.eventsStream, n.sessionFilter(sessionId));
  if (msg === null) return null;
  return { sequenceNumber: sequenceOf(msg), streamSequence: msg.seq, subject: msg.subject };
}

/** The per-session sequence number of a stored event: its `Aw-Seq` header, else its body. */
export function sequenceOf(msg: StoredMsg): number {
  const header = Number(msg.header?.get(HEADERS.sequence) ?? '');
  if (Number.isSafeInteger(header) && header > 0) return header;
  const body = msg.json<{ sequenceNumber?: unknown }>();
  if (typeof body.sequenceNumber === 'number') return body.sequenceNumber;
  throw new TypeError(`stored message ${msg.seq} on ${msg.subject} carries no sequence number`);
}

/** One turn whose transient subject still holds messages. */
export interface OpenTurn {
  readonly turnId: string;
  readonly subject: string;
  /** Messages retained on the subject. */
  readonly messages: number;
}

/**
 * The turns of a session whose `tx.<turnId>` subjects still hold transient events (stream
 * info with a subjects filter, DESIGN.md flow 5): candidates for eviction (R3.4, R3.5) and
 * for crash reconciliation (flow 6).
 */
export async function openTurns(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<OpenTurn[]> {
  const txPrefix = n.transientSubject(sessionId, 'x').slice(0, -1);
  const info = await jsm.streams.info(n.eventsStream, { subjects_filter: `${txPrefix}*` });
  const subjects = info.state.subjects ?? {};
  return Object.entries(subjects)
    .map(([subject, messages]) => ({ turnId: subject.slice(txPrefix.length), subject, messages }))
    .sort((a, b) => a.subject.localeCompare(b.subject));
}

/**
 * Evicts a sealed turn's transient events by purging its `tx.<turnId>` subject (R3.3-R3.5).
 * Sequence numbers are never reused (R3.6): numbering continues from the runtime's counter.
 * Returns how many messages were purged.
 */
export async function purgeTurn(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
  turnId: string,
): Promise<number> {
  const response = await jsm.streams.purge(n.eventsStream, {
    filter: n.transientSubject(sessionId, turnId),
  });
  return response.purged;
}
