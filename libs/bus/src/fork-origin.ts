import { decodeSessionEvent, type Names } from '@agentwire/contracts';
import type { JetStreamManager, MsgRequest } from '@nats-io/jetstream';

/**
 * The session `sessionId` was forked from, as its first durable event says: a fork's event
 * 1 is `session_forked` naming its original (docs/decisions/0240). Undefined for a session
 * that is not a fork, and for one whose first event is no longer retained. One server-side
 * lookup (get-message `next_by_subj` from stream sequence 1), no consumer.
 */
export async function forkOrigin(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<string | undefined> {
  // The server has answered `next_by_subj` on a stream get since 2.9; the client's type only
  // lists it for direct gets, which the events stream does not allow.
  const query = { seq: 1, next_by_subj: n.eventSubject(sessionId) } as unknown as MsgRequest;
  const msg = await jsm.streams.getMessage(n.eventsStream, query);
  if (msg === null) return undefined;
  const decoded = decodeSessionEvent(msg.data);
  if (!decoded.ok) return undefined;
  const event = decoded.event;
  if (event.type !== 'session_forked' || event.sequenceNumber !== 1) return undefined;
  if (event.sessionId !== sessionId || event.payload.forkedSessionId !== sessionId)
    return undefined;
  return event.payload.originalSessionId;
}
