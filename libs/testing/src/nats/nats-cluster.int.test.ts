import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../wait-until.ts';
import { natsServerSupport } from './find-nats-server.ts';
import { type NatsCluster, startNatsCluster } from './nats-cluster.ts';

const support = natsServerSupport();

describe.skipIf(!support.ok)('startNatsCluster', () => {
  let cluster: NatsCluster;

  beforeAll(async () => {
    cluster = await startNatsCluster();
  });
  afterAll(() => cluster?.dispose());

  it('runs an R3 stream that survives its leader being SIGKILLed and brought back', async () => {
    expect(cluster.nodes.map((n) => n.state)).toEqual(['running', 'running', 'running']);
    const nc = await connect({ servers: [...cluster.urls] });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'R3', subjects: ['r3.>'], num_replicas: 3 });
    const js = jetstream(nc);
    let acked = 0;
    for (; acked < 50; acked++) await js.publish('r3.a', `m${acked}`);

    const before = await cluster.waitForStream('R3');
    expect(before.replicas).toHaveLength(2);
    const leader = before.leader;
    if (!leader) throw new Error('no leader');
    await leader.kill();

    // Publish on through the failover: each message is retried until the new leader acks it.
    for (let i = 0; i < 50; i++) {
      await waitUntil(
        () =>
          js.publish('r3.a', `n${i}`, { msgID: `n${i}` }).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 30_000, intervalMs: 100, what: `publish n${i} acked` },
      );
      acked += 1;
    }
    const during = await cluster.placement('R3');
    expect(during.leader).toBeDefined();
    expect(during.leader).not.toBe(leader);

    await leader.start();
    const after = await cluster.waitForStream('R3');
    expect(after.replicas.map((r) => r.node)).toContain(leader);
    expect((await jsm.streams.info('R3')).state.messages).toBe(acked);
    await nc.close();
  });
});
