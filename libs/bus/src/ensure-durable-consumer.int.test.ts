import { type TestEnvironment, waitUntil } from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDurableConsumer } from './ensure-durable-consumer.ts';
import { setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;
let stream: string;

beforeAll(async () => {
  ({ env, nc } = await setup());
  stream = `${env.prefix}_DURABLE`;
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${env.prefix}.durable.>`] });
});

afterAll(async () => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(stream).catch(() => {});
  await nc.close();
  await env.dispose();
});

/** Records the JetStream consumer API requests made while it listens (`$JS.API.CONSUMER.>`). */
function apiSpy(): { readonly seen: string[]; readonly sub: Subscription } {
  const seen: string[] = [];
  const sub = nc.subscribe('$JS.API.CONSUMER.>', {
    callback: (_err, msg) => {
      // `CONSUMER.MSG.NEXT` is a pull, not a question about the consumer.
      if (!msg.subject.includes('.MSG.NEXT.')) seen.push(msg.subject.split('.')[3] ?? '');
    },
  });
  return { seen, sub };
}

const spec = (durable: string, ackWaitMs = 30_000) => ({
  stream,
  durable,
  filterSubject: `${env.prefix}.durable.*.ev`,
  ackWaitMs,
  maxAckPending: 100,
});

describe('ensureDurableConsumer: joining a shared durable (docs/decisions/0250)', () => {
  it('creates a missing durable, and binds an existing one asking for its names only, never its info', async () => {
    const jsm = await jetstreamManager(nc);
    const first = apiSpy();
    const created = await ensureDurableConsumer(nc, jsm, spec('joiners'));
    await nc.flush();
    first.sub.unsubscribe();
    expect(first.seen).toContain('NAMES');
    expect(first.seen.some((op) => op === 'CREATE' || op === 'DURABLE')).toBe(true);

    // A second instance joins: on NATS 2.9 a consumer info (or a create, whose reply is one)
    // would make the server recount a wildcard consumer's pending on every delivery.
    const second = apiSpy();
    const joined = await ensureDurableConsumer(nc, jsm, spec('joiners'));
    await nc.flush();
    second.sub.unsubscribe();
    expect(second.seen).toEqual(['NAMES']);

    // Both pull from the same durable: each message goes to one of them, once.
    const js = jetstream(nc);
    for (let i = 1; i <= 6; i++) await js.publish(`${env.prefix}.durable.s${i % 2}.ev`, `m${i}`);
    const got: string[] = [];
    for (const consumer of [created, joined]) {
      const batch = await consumer.fetch({ max_messages: 3, expires: 2_000, bind: true });
      for await (const msg of batch) {
        got.push(msg.string());
        msg.ack();
      }
    }
    expect(got.sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    await waitUntil(
      async () => (await jsm.consumers.info(stream, 'joiners')).num_ack_pending === 0,
      { what: 'all six acked' },
    );
  });

  it('uses an existing durable as it is: its ack wait is the one it was created with', async () => {
    const jsm = await jetstreamManager(nc);
    await ensureDurableConsumer(nc, jsm, spec('settings', 30_000));
    await ensureDurableConsumer(nc, jsm, spec('settings', 5_000));
    const info = await jsm.consumers.info(stream, 'settings');
    expect(info.config.ack_wait).toBe(30_000 * 1_000_000);
  });

  it('names the stream when it does not exist', async () => {
    const jsm = await jetstreamManager(nc);
    await expect(
      ensureDurableConsumer(nc, jsm, { ...spec('nowhere'), stream: `${stream}_MISSING` }),
    ).rejects.toThrow(`consumer names of ${stream}_MISSING: stream not found`);
  });
});
