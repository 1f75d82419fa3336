import { HEADERS, type Names } from '@agentwire/contracts';
import {
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
  type StoredMsg,
} from '@nats-io/jetstream';

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
 * via get-message `last_by_subj` on the session filter), or `null`, with the highest number
 * retained (a garbage last message does not hide it). Where followers start; a taking-over
 * runtime numbers from {@link readSessionTip}, which reads fences and numbers in order.
 */
export async function lastSessionSequence(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<SessionPosition | null> {
  const filter = n.sessionFilter(sessionId);
  const msg = await lastMessageOn(jsm, n.eventsStream, filter);
  if (msg === null) return null;
  const sequenceNumber = await highestNumberOn(jsm, n.eventsStream, filter, msg);
  return { sequenceNumber, streamSequence: msg.seq, subject: msg.subject };
}

/**
 * The per-session sequence number of a stored event: its `Aw-Seq` header, else its body. A
 * writer's fence marker has no number of its own; it stands for the number the session had
 * reached when it was set (`Aw-Fence-After`, docs/decisions/0110).
 */
export function sequenceOf(msg: StoredMsg): number {
  const header = Number(msg.header?.get(HEADERS.sequence) ?? '');
  if (Number.isSafeInteger(header) && header > 0) return header;
  const fenceAfter = msg.header?.get(HEADERS.fenceAfter);
  if (fenceAfter !== undefined && fenceAfter !== '' && Number.isSafeInteger(Number(fenceAfter))) {
    return Number(fenceAfter);
  }
  const body = msg.json<{ sequenceNumber?: unknown }>();
  if (typeof body.sequenceNumber === 'number') return body.sequenceNumber;
  throw new TypeError(`stored message ${msg.seq} on ${msg.subject} carries no sequence number`);
}

/** {@link sequenceOf}, or `undefined` for a message that carries no readable number. */
function numberOf(msg: StoredMsg): number | undefined {
  try {
    return sequenceOf(msg);
  } catch {
    return undefined;
  }
}

/**
 * The highest per-session number on `subject`, given its last stored message `last`: that
 * message's own number, or, when it carries none (garbage someone published there, issue
 * 9), a scan of the subject's headers (`headers_only`, no bodies) for the highest `Aw-Seq`.
 * A writer numbering after this never reuses a number hidden behind a poisoned last message.
 */
export async function highestNumberOn(
  jsm: JetStreamManager,
  stream: string,
  subject: string,
  last: StoredMsg,
): Promise<number> {
  const own = numberOf(last);
  if (own !== undefined) return own;
  const consumer = await jsm.jetstream().consumers.get(stream, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
    headers_only: true,
  });
  let highest = 0;
  try {
    for (;;) {
      const m = await consumer.next({ expires: 2000 });
      if (m === null) break;
      const n = Number(
        m.headers?.get(HEADERS.sequence) ?? m.headers?.get(HEADERS.fenceAfter) ?? '',
      );
      if (Number.isSafeInteger(n) && n > highest) highest = n;
      if (m.seq >= last.seq || m.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return highest;
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
  const filter = n.transientFilter(sessionId);
  const info = await jsm.streams.info(n.eventsStream, { subjects_filter: filter });
  const subjects = info.state.subjects ?? {};
  return Object.entries(subjects)
    .flatMap(([subject, messages]) => {
      const turnId = n.parseEventSubject(subject)?.turnId;
      return turnId === undefined || turnId === null ? [] : [{ turnId, subject, messages }];
    })
    .sort((a, b) => a.subject.localeCompare(b.subject));
}

/**
 * Evicts a sealed turn's transient events by purging its `tx.<turnId>` subject (R3.3-R3.5).
 * Sequence numbers are never reused (R3.6): numbering continues from the runtime's counter.
 * `keep: 1` leaves the subject's last message: a lost turn's subject keeps the fence marker
 * that shuts its earlier writer out (docs/decisions/0110). Returns how many were purged.
 */
export async function purgeTurn(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
  turnId: string,
  options: { readonly keep?: number } = {},
): Promise<number> {
  const response = await jsm.streams.purge(n.eventsStream, {
    filter: n.transientSubject(sessionId, turnId),
    ...(options.keep === undefined ? {} : { keep: options.keep }),
  });
  return response.purged;
}

/**
 * True when every message stored on `subject` after stream sequence `after` up to
 * `through` is garbage: neither an event (`Aw-Seq`) nor a writer's fence marker. A writer
 * whose fence a foreign publish moved may then adopt `through` and go on (issue 9: garbage
 * on a session subject is tolerated); any event or marker among them is another writer,
 * and the fence holds. Reads headers only.
 */
export async function onlyGarbageBetween(
  jsm: JetStreamManager,
  stream: string,
  subject: string,
  after: number,
  through: number,
): Promise<boolean> {
  const consumer = await jsm.jetstream().consumers.get(stream, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: after + 1,
    headers_only: true,
  });
  try {
    for (;;) {
      const m = await consumer.next({ expires: 2000 });
      if (m === null) return false;
      if (m.seq > through) return true;
      const h = m.headers;
      if ((h?.get(HEADERS.sequence) ?? '') !== '' || (h?.get(HEADERS.fence) ?? '') !== '') {
        return false;
      }
      if (m.seq === through || m.info.pending === 0) return true;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}
