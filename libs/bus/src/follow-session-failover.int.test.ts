import { names, type SessionEvent } from '@agentwire/contracts';
import {
  type NatsCluster,
  natsServerSupport,
  startNatsCluster,
  waitUntil,
} from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusConnection, connectBus } from './connect-bus.ts';
import { followSession, type SessionFollower } from './follow-session.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { durableEvent } from './test-support.ts';

const support = natsServerSupport();
const SESSIONS = 12;
const n = names('follow');

describe.skipIf(!support.ok)('followSession on a cluster that loses a node', () => {
  let cluster: NatsCluster;
  let bus: BusConnection;
  beforeAll(async () => {
    cluster = await startNatsCluster();
    bus = await connectBus({ servers: cluster.urls, name: 'follow-failover' });
    await provision(bus.nc, n, { replicas: 3 });
  });
  afterAll(async () => {
    await bus?.close();
    await cluster?.dispose();
  });

  /** Publishes `seq` of `sid`, retried (same event id: de-duplicated) until acknowledged. */
  async function publish(sid: string, seq: number): Promise<void> {
    await waitUntil(
      () =>
        publishEvent(bus.js, n, durableEvent(sid, seq), {
          previousDurableSequence: seq - 1,
          timeoutMs: 2_000,
        }).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 60_000, intervalMs: 100, what: `${sid} event ${seq} acknowledged` },
    );
  }

  it('every follower goes on by itself while the stream leader stays dead', async () => {
    const sids = Array.from({ length: SESSIONS }, (_, i) => `f${i}`);
    const seen = new Map<string, number[]>(sids.map((s) => [s, []]));
    const followers: SessionFollower[] = [];
    const loops = sids.map((sid) => {
      const follower = followSession(bus.js, n, sid, { afterSequence: 0 });
      followers.push(follower);
      return (async () => {
        for await (const e of follower as AsyncIterable<SessionEvent>) {
          seen.get(sid)?.push(e.sequenceNumber);
        }
      })();
    });
    for (let seq = 1; seq <= 5; seq++) await Promise.all(sids.map((s) => publish(s, seq)));
    await waitUntil(() => sids.every((s) => seen.get(s)?.length === 5), { what: 'first events' });

    const { leader } = await cluster.waitForStream(n.eventsStream);
    await leader?.kill();
    for (let seq = 6; seq <= 10; seq++) await Promise.all(sids.map((s) => publish(s, seq)));

    await waitUntil(() => sids.every((s) => seen.get(s)?.length === 10), {
      timeoutMs: 60_000,
      what: `every follower to see the events published after the kill (${sids.map((s) => seen.get(s)?.length).join(',')})`,
    });
    for (const sid of sids) expect(seen.get(sid)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await Promise.all(followers.map((f) => f.stop()));
    await Promise.all(loops);
  }, 180_000);
});
