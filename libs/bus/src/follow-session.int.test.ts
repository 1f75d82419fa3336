import { HEADERS, names, type SessionEvent } from '@agentwire/contracts';
import { type TestEnvironment, waitUntil } from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBaseExpired } from './bus-error.ts';
import { eventHeaders } from './event-headers.ts';
import { followSession } from './follow-session.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { publishFenceMarker } from './publish-fence.ts';
import { SessionFence } from './session-fence.ts';
import { purgeTurn } from './session-state.ts';
import { deprovision, durableEvent, setup, transientEvent } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;

beforeAll(async () => {
  ({ env, nc } = await setup());
  await provision(nc, names(env.prefix));
});

afterAll(async () => {
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

/** Every third number is a transient event of turn1; the others are non-transient. */
const isTransient = (seq: number) => seq % 3 === 0;

/** `Aw-Prev-Seq` of `seq`: the previous non-transient number, 0 for none. */
function previousDurable(seq: number): number {
  for (let k = seq - 1; k > 0; k--) if (!isTransient(k)) return k;
  return 0;
}

/**
 * Publishes events from..to of a session, through a fence as a runtime would when one is
 * given, each with its `Aw-Prev-Seq` chain.
 */
async function publishRange(
  conn: NatsConnection,
  sid: string,
  from: number,
  to: number,
  fence?: SessionFence,
) {
  const js = jetstream(conn);
  for (let seq = from; seq <= to; seq++) {
    const event = isTransient(seq) ? transientEvent(sid, 'turn1', seq) : durableEvent(sid, seq);
    const result = await publishEvent(js, names(env.prefix), event, {
      ...(fence === undefined ? {} : { expectedLastSubjectSequence: fence.expectedFor(event) }),
      previousDurableSequence: previousDurable(seq),
    });
    if (result.kind === 'fenced') throw new Error(`fenced at ${seq}`);
    fence?.advance(event, result.streamSequence);
  }
}

function collect(follower: AsyncIterable<SessionEvent>, into: number[]): Promise<void> {
  return (async () => {
    for await (const e of follower) into.push(e.sequenceNumber);
  })();
}

/** Removes the session's messages below its event `seq` (as the stream's age limit would). */
async function dropBefore(sid: string, seq: number): Promise<void> {
  const n = names(env.prefix);
  const jsm = await jetstreamManager(nc);
  const consumer = await jetstream(nc).consumers.get(n.eventsStream, {
    filter_subjects: n.sessionFilter(sid),
  });
  let streamSequence: number | undefined;
  while (streamSequence === undefined) {
    const m = await consumer.next({ expires: 2_000 });
    if (m === null) throw new Error(`event ${seq} of ${sid} is not in the stream`);
    if (m.headers?.get(HEADERS.sequence) === String(seq)) streamSequence = m.seq;
  }
  await consumer.delete();
  await jsm.streams.purge(n.eventsStream, { filter: n.sessionFilter(sid), seq: streamSequence });
}

/** What following `sid` from `afterSequence` yields, or the error that ended it. */
function followUntilEnd(sid: string, afterSequence: number, seen: number[]) {
  const follower = followSession(jetstream(nc), names(env.prefix), sid, { afterSequence });
  return {
    follower,
    done: collect(follower, seen).then(
      () => null,
      (error: unknown) => error,
    ),
  };
}

describe('followSession', () => {
  it('replays from a base, then tails live events, each once and in order, across a publisher reconnect', async () => {
    const n = names(env.prefix);
    const sid = 's-follow';
    const fence = new SessionFence(0);
    await publishRange(nc, sid, 1, 10, fence);
    // Another session's traffic must not leak in.
    await publishEvent(jetstream(nc), n, durableEvent('s-other', 1), {
      previousDurableSequence: 0,
    });

    const seen: number[] = [];
    const follower = followSession(jetstream(nc), n, sid, { afterSequence: 4 });
    const done = collect(follower, seen);
    await waitUntil(() => seen.length === 6);
    expect(seen).toEqual([5, 6, 7, 8, 9, 10]);

    // The publisher restarts: a new connection continues numbering; a retried event is de-duplicated.
    const publisher = await connect({ servers: env.natsUrl });
    await publishRange(publisher, sid, 10, 15, fence);
    await publisher.close();
    const again = await connect({ servers: env.natsUrl });
    await publishRange(again, sid, 16, 20, fence);
    await again.close();

    await waitUntil(() => seen.length === 16);
    expect(seen).toEqual(Array.from({ length: 16 }, (_, i) => i + 5));
    expect(follower.lastSequence).toBe(20);
    await follower.stop();
    await done;
  });

  it('starts after the tip when the base is current, and from the start with base 0', async () => {
    const n = names(env.prefix);
    const sid = 's-tip';
    const fence = new SessionFence(0);
    await publishRange(nc, sid, 1, 5, fence);

    const current: number[] = [];
    const atTip = followSession(jetstream(nc), n, sid, { afterSequence: 5 });
    const doneTip = collect(atTip, current);
    const all: number[] = [];
    const fromZero = followSession(jetstream(nc), n, sid, { afterSequence: 0 });
    const doneZero = collect(fromZero, all);
    await waitUntil(() => all.length === 5);
    await publishRange(nc, sid, 6, 7, fence);
    await waitUntil(() => current.length === 2 && all.length === 7);
    expect(current).toEqual([6, 7]);
    expect(all).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await Promise.all([atTip.stop(), fromZero.stop()]);
    await Promise.all([doneTip, doneZero]);
  });
});

describe('followSession with a base outside the retained window (R15.1)', () => {
  it('reports the gap with its numbers, and replays a base still inside the window', async () => {
    const sid = 's-expired';
    await publishRange(nc, sid, 1, 10, new SessionFence(0));
    // The stream lost 1..6 (6 is transient); 7 names 5 as its predecessor.
    await dropBefore(sid, 7);

    for (const base of [0, 2, 4]) {
      const seen: number[] = [];
      const { done } = followUntilEnd(sid, base, seen);
      const error = await done;
      expect(isBaseExpired(error), `base ${base}`).toBe(true);
      expect(error).toMatchObject({
        code: 'base_expired',
        expiredBase: { afterSequence: base, missingSequence: 5, firstAvailableSequence: 7 },
      });
      expect(seen).toEqual([]);
    }

    // 5 is the last non-transient number before 7: a client that has it misses nothing durable.
    const seen: number[] = [];
    const { follower, done } = followUntilEnd(sid, 5, seen);
    await waitUntil(() => seen.length === 4);
    expect(seen).toEqual([7, 8, 9, 10]);
    await publishRange(nc, sid, 11, 12);
    await waitUntil(() => seen.length === 6);
    expect(seen).toEqual([7, 8, 9, 10, 11, 12]);
    await follower.stop();
    expect(await done).toBeNull();
  });

  it('takes a hole of evicted transient events for no gap', async () => {
    const sid = 's-transient-hole';
    await publishRange(nc, sid, 1, 7, new SessionFence(0));
    await purgeTurn(await jetstreamManager(nc), names(env.prefix), sid, 'turn1');
    const seen: number[] = [];
    const { follower, done } = followUntilEnd(sid, 2, seen);
    await waitUntil(() => seen.length === 3);
    expect(seen).toEqual([4, 5, 7]);
    await follower.stop();
    expect(await done).toBeNull();
  });

  it('reports the gap at the next event when the session left the stream entirely', async () => {
    const n = names(env.prefix);
    const sid = 's-gone';
    await publishRange(nc, sid, 1, 5, new SessionFence(0));
    const jsm = await jetstreamManager(nc);
    await jsm.streams.purge(n.eventsStream, { filter: n.sessionFilter(sid) });

    const behind: number[] = [];
    const stale = followUntilEnd(sid, 2, behind);
    const current: number[] = [];
    const upToDate = followUntilEnd(sid, 5, current);
    // The runtime continues the numbering and the chain after 5 (R2.3, cold recovery).
    await publishRange(nc, sid, 7, 8);
    expect(await stale.done).toMatchObject({
      code: 'base_expired',
      expiredBase: { afterSequence: 2, missingSequence: 5, firstAvailableSequence: 7 },
    });
    expect(behind).toEqual([]);
    await waitUntil(() => current.length === 2);
    expect(current).toEqual([7, 8]);
    await upToDate.follower.stop();
    expect(await upToDate.done).toBeNull();
  });

  it('reports a gap after events it already yielded with its last number', async () => {
    const sid = 's-later-gap';
    await publishRange(nc, sid, 1, 2, new SessionFence(0));
    const seen: number[] = [];
    const { follower, done } = followUntilEnd(sid, 0, seen);
    await waitUntil(() => seen.length === 2);
    // Event 4 never reaches the follower (as if the age limit dropped it before delivery):
    // 5 names it as its predecessor.
    const js = jetstream(nc);
    await publishEvent(js, names(env.prefix), durableEvent(sid, 5), {
      previousDurableSequence: 4,
    });
    expect(await done).toMatchObject({
      code: 'base_expired',
      expiredBase: { afterSequence: 2, missingSequence: 4, firstAvailableSequence: 5 },
    });
    expect(follower.lastSequence).toBe(2);
  });

  it('skips fence markers, and reports two different events with one number instead of showing either', async () => {
    const sid = 's-conflict';
    const fence = new SessionFence(0);
    await publishRange(nc, sid, 1, 2, fence);
    const js = jetstream(nc);
    const n = names(env.prefix);
    const marker = await publishFenceMarker(js, n.transientSubject(sid, 'turn1'), {
      expectedLastSubjectSequence: 0,
      owner: 'taker',
      after: 2,
    });
    expect(marker.kind).toBe('ok');
    const seen: number[] = [];
    const { follower, done } = followUntilEnd(sid, 0, seen);
    await waitUntil(() => seen.length === 2);
    // A second writer (no fence) publishes its own event 2.
    await publishEvent(js, n, durableEvent(sid, 2, 'ev-other-writer-2'), {
      previousDurableSequence: 1,
    });
    expect(await done).toMatchObject({
      code: 'sequence_conflict',
      conflict: { sequenceNumber: 2, eventIds: [`ev-${sid}-2`, 'ev-other-writer-2'] },
    });
    expect(seen).toEqual([1, 2]);
    expect(follower.lastSequence).toBe(2);
  });

  it('drops a redelivered copy of an event it already has, silently', async () => {
    const sid = 's-redelivered';
    await publishRange(nc, sid, 1, 2, new SessionFence(0));
    // The same event stored twice (a publisher without a message id): same id, same number.
    const js = jetstream(nc);
    const n = names(env.prefix);
    const again = durableEvent(sid, 2);
    const h = eventHeaders(again, 1);
    h.delete(HEADERS.msgId);
    await js.publish(n.eventSubject(sid), JSON.stringify(again), { headers: h });
    await publishRange(nc, sid, 4, 4);
    const seen: number[] = [];
    const { follower, done } = followUntilEnd(sid, 0, seen);
    await waitUntil(() => seen.length === 3);
    expect(seen).toEqual([1, 2, 4]);
    await follower.stop();
    expect(await done).toBeNull();
  });
});

describe('followSession when its consumer drops a message (a client reset across a reconnect)', () => {
  it.each([
    [1, 'a reset consumer loses what it had buffered'],
    [
      3,
      'a just-restarted NATS 2.9 server delivered a filtered consumer with a hole, twice more on reading again',
    ],
  ])(
    'sees a skipped durable event by the Aw-Prev-Seq chain and reads it again, in order, once (dropped by %i consumers: %s)',
    async (drops) => {
      const sid = `skipped-durable-${drops}`;
      await publishRange(nc, sid, 1, 8);
      const real = jetstream(nc);
      let consumers = 0;
      let dropped = false;
      // The first `drops` consumers lose durable event 5; a consumer created afterwards is
      // the real one.
      const js = new Proxy(real, {
        get(target, prop, receiver) {
          if (prop !== 'consumers') return Reflect.get(target, prop, receiver);
          return {
            get: async (...args: Parameters<typeof real.consumers.get>) => {
              const consumer = await real.consumers.get(...args);
              const consume = consumer.consume.bind(consumer);
              return Object.assign(Object.create(consumer), {
                consume: async (opts?: Parameters<typeof consume>[0]) => {
                  const messages = await consume(opts);
                  consumers += 1;
                  if (consumers > drops) return messages;
                  const iterate = messages[Symbol.asyncIterator].bind(messages);
                  return Object.assign(Object.create(messages), {
                    close: () => messages.close(),
                    closed: () => messages.closed(),
                    status: () => messages.status(),
                    [Symbol.asyncIterator]: async function* () {
                      for await (const m of { [Symbol.asyncIterator]: iterate }) {
                        if (m.headers?.get(HEADERS.sequence) === '5') {
                          dropped = true;
                          continue;
                        }
                        yield m;
                      }
                    },
                  });
                },
              });
            },
          };
        },
      }) as typeof real;
      const seen: number[] = [];
      const follower = followSession(js, names(env.prefix), sid, { afterSequence: 0 });
      const done = collect(follower, seen);
      await waitUntil(() => seen.length >= 8, { what: 'all eight events' });
      await follower.stop();
      await done;
      expect(dropped).toBe(true);
      expect(consumers).toBe(drops + 1);
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    },
  );
});
