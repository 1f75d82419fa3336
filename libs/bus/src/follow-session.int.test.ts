import { names, type SessionEvent } from '@agentwire/contracts';
import { type TestEnvironment, waitUntil } from '@agentwire/testing';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followSession } from './follow-session.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { SessionFence } from './session-fence.ts';
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

/** Publishes events 1..count of a session through a fence, as a runtime would. */
async function publishRange(
  conn: NatsConnection,
  sid: string,
  from: number,
  to: number,
  fence: SessionFence,
) {
  const js = jetstream(conn);
  for (let seq = from; seq <= to; seq++) {
    const event = seq % 3 === 0 ? transientEvent(sid, 'turn1', seq) : durableEvent(sid, seq);
    const result = await publishEvent(js, names(env.prefix), event, {
      expectedLastSubjectSequence: fence.expectedFor(event),
      previousDurableSequence: 0,
    });
    if (result.kind === 'fenced') throw new Error(`fenced at ${seq}`);
    fence.advance(event, result.streamSequence);
  }
}

function collect(follower: AsyncIterable<SessionEvent>, into: number[]): Promise<void> {
  return (async () => {
    for await (const e of follower) into.push(e.sequenceNumber);
  })();
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
