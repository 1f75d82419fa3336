import { names } from '@agentwire/contracts';
import {
  createTestEnvironment,
  type NatsCluster,
  natsServerSupport,
  startNatsCluster,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus } from './connect-bus.ts';
import { deadLetterStream } from './dead-letter-names.ts';
import { provision } from './provision.ts';
import { deprovision } from './test-support.ts';

const support = natsServerSupport();

async function replicasOf(nc: NatsConnection, n: ReturnType<typeof names>) {
  const jsm = await jetstreamManager(nc);
  const streams = [n.eventsStream, n.commandsStream, deadLetterStream(n), `KV_${n.leaseBucket}`];
  return Promise.all(streams.map(async (s) => (await jsm.streams.info(s)).config.num_replicas));
}

describe.skipIf(!support.ok)('provision with AW_REPLICAS on a three-node cluster', () => {
  let cluster: NatsCluster;
  beforeAll(async () => {
    cluster = await startNatsCluster();
  });
  afterAll(() => cluster?.dispose());

  it('creates every stream and the lease bucket with 3 replicas, connecting by a comma list', async () => {
    const bus = await connectBus({ servers: cluster.urls.join(','), name: 'provision-r3' });
    const n = names('fresh');
    await provision(bus.nc, n, { replicas: 3 });
    expect(await replicasOf(bus.nc, n)).toEqual([3, 3, 3, 3]);
    const placed = await cluster.waitForStream(n.eventsStream);
    expect(placed.replicas).toHaveLength(2);
    await bus.close();
  });

  it('moves existing R1 streams, their messages and consumers to R3 in place', async () => {
    const nc = await connect({ servers: [...cluster.urls] });
    const n = names('grow');
    await provision(nc, n, { replicas: 1 });
    const js = jetstream(nc);
    for (let i = 0; i < 20; i++) await js.publish(n.eventSubject('s1'), `e${i}`);
    const jsm = await jetstreamManager(nc);
    await jsm.consumers.add(n.eventsStream, { durable_name: 'reader', ack_policy: 'explicit' });

    await provision(nc, n, { replicas: 3 });
    expect(await replicasOf(nc, n)).toEqual([3, 3, 3, 3]);
    await cluster.waitForStream(n.eventsStream);
    expect((await jsm.streams.info(n.eventsStream)).state.messages).toBe(20);
    const consumer = await jsm.consumers.info(n.eventsStream, 'reader');
    expect(consumer.num_pending).toBe(20);
    // The server moves a durable consumer with its stream (its num_replicas 0 = the stream's).
    await waitUntil(
      async () =>
        (await jsm.consumers.info(n.eventsStream, 'reader')).cluster?.replicas?.length === 2,
      { timeoutMs: 20_000, what: 'the consumer to have two followers' },
    );
    // Idempotent: a second run changes nothing.
    await provision(nc, n, { replicas: 3 });
    expect(await replicasOf(nc, n)).toEqual([3, 3, 3, 3]);
    await nc.close();
  });

  it('says which stream cannot get more replicas than the cluster has servers', async () => {
    const nc = await connect({ servers: [...cluster.urls] });
    await expect(provision(nc, names('toomany'), { replicas: 5 })).rejects.toMatchObject({
      name: 'BusError',
      code: 'provision_replicas',
      message: expect.stringMatching(
        /^cannot give TOOMANY_EVENTS 5 replicas: .*cluster of at least 5/,
      ),
    });
    await nc.close();
  });
});

describe('provision with AW_REPLICAS=3 on one server', () => {
  let env: TestEnvironment;
  let nc: NatsConnection;
  beforeAll(async () => {
    env = await createTestEnvironment();
    nc = await connect({ servers: env.natsUrl });
  });
  afterAll(async () => {
    await deprovision(nc, names(env.prefix));
    await nc.close();
    await env.dispose();
  });

  it('refuses with a clear reason and leaves the existing R1 streams as they were', async () => {
    const n = names(env.prefix);
    await provision(nc, n);
    await expect(provision(nc, n, { replicas: 3 })).rejects.toMatchObject({
      code: 'provision_replicas',
      message: expect.stringContaining(`is not part of a cluster`),
    });
    expect(await replicasOf(nc, n)).toEqual([1, 1, 1, 1]);
  });
});
