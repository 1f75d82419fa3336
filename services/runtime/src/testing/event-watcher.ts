import { type BusConnection, lastMessageOn } from '@agentwire/bus';
import { decodeSessionEvent, type Names, type SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import type { ConsumerMessages } from '@nats-io/jetstream';

/** Every session's non-transient events, as one ordered consumer of the stream saw them. */
export interface EventWatcher {
  /** The session's events so far, in stream order. */
  events(sessionId: string): readonly SessionEvent[];
  /** Resolves once `check` holds for the session's events; rejects after `timeoutMs`. */
  waitFor(
    sessionId: string,
    what: string,
    check: (events: readonly SessionEvent[]) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
  /** Resolves once the watcher has read everything the stream holds now. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Watches the `ev` subjects of every session of a prefix with one ordered consumer (a
 * test frontend for many sessions at once: one follower per session would cost a
 * consumer each). Messages that fail to decode are kept out and counted as a failure of
 * {@link EventWatcher.caughtUp}.
 */
export async function watchEvents(bus: BusConnection, n: Names): Promise<EventWatcher> {
  const bySession = new Map<string, SessionEvent[]>();
  let lastStreamSeq = 0;
  const undecodable: number[] = [];
  const consumer = await bus.js.consumers.get(n.eventsStream, {
    filter_subjects: n.allEventsFilter,
  });
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 1024 });
  const done = (async () => {
    for await (const m of messages) {
      lastStreamSeq = m.seq;
      const decoded = decodeSessionEvent(m.data);
      if (!decoded.ok) {
        undecodable.push(m.seq);
        continue;
      }
      const sid = decoded.event.sessionId;
      let list = bySession.get(sid);
      if (list === undefined) {
        list = [];
        bySession.set(sid, list);
      }
      list.push(decoded.event);
    }
  })();
  const events = (sid: string) => bySession.get(sid) ?? [];
  return {
    events,
    waitFor: (sid, what, check, timeoutMs = 60_000) =>
      waitUntil(() => check(events(sid)), { timeoutMs, what: `${sid}: ${what}` }),
    async caughtUp(timeoutMs = 30_000) {
      const tip = (await lastMessageOn(bus.jsm, n.eventsStream, n.allEventsFilter))?.seq ?? 0;
      await waitUntil(() => lastStreamSeq >= tip, {
        timeoutMs,
        what: `the watcher at stream sequence ${tip}`,
      });
      if (undecodable.length > 0) {
        throw new Error(`undecodable events at stream sequences ${undecodable.join(', ')}`);
      }
    },
    async stop() {
      await messages.close();
      await done;
      await consumer.delete().catch(() => undefined);
    },
  };
}
