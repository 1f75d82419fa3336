import { decodeSessionEvent, HEADERS, type Names, type SessionEvent } from '@agentwire/contracts';
import { DeliverPolicy, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';

/** One retained message of a session's subjects, as the stream holds it. */
export interface RetainedMessage {
  readonly streamSequence: number;
  readonly subject: string;
  /** `Aw-Seq`, when the message carries one (events do; fence markers do not). */
  readonly number: number | undefined;
  /** The decoded event, when the body is one. */
  readonly event: SessionEvent | undefined;
  /** True for a writer's fence marker (`Aw-Fence`, docs/decisions/0110). */
  readonly fence: boolean;
}

/**
 * Every message retained on `<p>.session.<sid>.>`, in stream order, undecoded where it does
 * not decode: what an outside observer of the stream sees (tests count duplicates, gaps and
 * foreign writes on it).
 */
export async function readSessionMessages(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
): Promise<RetainedMessage[]> {
  const consumer = await js.consumers.get(n.eventsStream, {
    filter_subjects: n.sessionFilter(sessionId),
    deliver_policy: DeliverPolicy.All,
  });
  const out: RetainedMessage[] = [];
  try {
    for (;;) {
      const m = await consumer.next({ expires: 2000 });
      if (m === null) break;
      out.push(retained(m));
      if (m.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return out;
}

/** Numbers carried by more than one retained event, with the ids of those events. */
export function duplicateNumbers(messages: readonly RetainedMessage[]): Map<number, string[]> {
  const ids = new Map<number, string[]>();
  for (const m of messages) {
    if (m.number === undefined) continue;
    ids.set(m.number, [...(ids.get(m.number) ?? []), m.event?.id ?? `stream#${m.streamSequence}`]);
  }
  return new Map([...ids].filter(([, list]) => list.length > 1));
}

/**
 * A recording of every message stored on a session's subjects from now on.
 *
 * @internal Exported for its tests.
 */
export interface SessionRecording {
  /** What was stored so far, in stream order (purges do not remove anything here). */
  readonly messages: readonly RetainedMessage[];
  stop(): Promise<void>;
}

/**
 * Records, live, every message the stream stores on `<p>.session.<sid>.>` from the start of
 * the stream: unlike {@link readSessionMessages} afterwards, it still holds what a later
 * purge removed (a duplicate number on a purged `tx` subject is a duplicate all the same
 * for the followers that saw it).
 */
export async function recordSessionMessages(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
): Promise<SessionRecording> {
  const consumer = await js.consumers.get(n.eventsStream, {
    filter_subjects: n.sessionFilter(sessionId),
    deliver_policy: DeliverPolicy.All,
  });
  const messages: RetainedMessage[] = [];
  const iterator = await consumer.consume();
  const done = (async () => {
    for await (const m of iterator) messages.push(retained(m));
  })();
  return {
    messages,
    async stop() {
      await iterator.close();
      await done;
    },
  };
}

function retained(m: JsMsg): RetainedMessage {
  const raw = Number(m.headers?.get(HEADERS.sequence) ?? '');
  const decoded = m.data.length === 0 ? undefined : decodeSessionEvent(m.data);
  return {
    streamSequence: m.seq,
    subject: m.subject,
    number: Number.isSafeInteger(raw) && raw > 0 ? raw : undefined,
    event: decoded?.ok === true ? decoded.event : undefined,
    fence: (m.headers?.get(HEADERS.fence) ?? '') !== '',
  };
}
