import { type TestEnvironment, waitUntil } from '@agentwire/testing';
import { type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDurableConsumer } from './ensure-durable-consumer.ts';
import { type Decoded, type Received, startPullConsumer } from './pull-consumer.ts';
import { setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;
let stream: string;

beforeAll(async () => {
  ({ env, nc } = await setup());
  stream = `${env.prefix}_PULL`;
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${env.prefix}.pull.>`] });
});

afterAll(async () => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(stream).catch(() => {});
  await nc.close();
  await env.dispose();
});

/** A durable consumer on `<prefix>.pull.<topic>`, created the services' way. */
async function durable(topic: string, ackWaitMs = 30_000) {
  const jsm = await jetstreamManager(nc);
  const consumer = await ensureDurableConsumer(nc, jsm, {
    stream,
    durable: topic,
    filterSubject: `${env.prefix}.pull.${topic}`,
    ackWaitMs,
    maxAckPending: 1_000,
  });
  return {
    consumer,
    backlog: async () => {
      const info = await jsm.consumers.info(stream, topic);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    },
  };
}

async function publish(topic: string, bodies: readonly string[]): Promise<void> {
  const js = jetstream(nc);
  for (const body of bodies) await js.publish(`${env.prefix}.pull.${topic}`, body);
}

/** `ok:<n>` applies n, `skip` is acked untouched, anything else is invalid. */
function decode(msg: JsMsg): Decoded<number> {
  const text = msg.string();
  if (text === 'skip') return { kind: 'skip', why: 'test' };
  if (text.startsWith('ok:')) return { kind: 'apply', value: Number(text.slice(3)) };
  return { kind: 'invalid', code: 'not_ok', reason: `body ${JSON.stringify(text)} is not ok:<n>` };
}

describe('startPullConsumer: the one pull loop of the services', () => {
  it('delivers in batches, acks skips, dead-letters invalid input with its reason, drains on stop', async () => {
    const { consumer, backlog } = await durable('mixed');
    await publish('mixed', [
      ...Array.from({ length: 25 }, (_, i) => `ok:${i}`),
      'skip',
      'garbage',
      'ok:25',
    ]);
    const delivered: number[][] = [];
    const parked: string[] = [];
    const running = await startPullConsumer<number>({
      name: 'mixed',
      consumer,
      decode,
      deliver: async (batch: readonly Received<number>[]) => {
        delivered.push(batch.map((r) => r.value));
        for (const r of batch) r.msg.ack();
      },
      deadLetter: async (_msg, code, reason) => {
        parked.push(`${code}: ${reason}`);
      },
      batchSize: 10,
      maxInFlight: 2,
    });
    await waitUntil(() => delivered.flat().length === 26, { what: 'every ok message delivered' });
    await running.stop();
    expect(delivered.flat()).toEqual(Array.from({ length: 26 }, (_, i) => i));
    expect(delivered.every((b) => b.length <= 10)).toBe(true);
    expect(parked).toEqual(['not_ok: body "garbage" is not ok:<n>']);
    expect(await backlog()).toEqual({ pending: 0, ackPending: 0 });
  });

  it('keeps a slow batch in progress: a short ack wait redelivers nothing', async () => {
    const { consumer, backlog } = await durable('slow', 1_000);
    // One message: a fetch may hand over two in one batch or one at a time, and with one
    // batch in flight the held batch would keep a second one waiting either way.
    await publish('slow', ['ok:1']);
    const deliveries: number[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = await startPullConsumer<number>({
      name: 'slow',
      consumer,
      decode,
      deliver: async (batch) => {
        for (const r of batch) deliveries.push(r.msg.info.deliveryCount);
        await held;
        for (const r of batch) r.msg.ack();
      },
      deadLetter: async () => {},
      batchSize: 10,
      maxInFlight: 1,
      keepAliveMs: 250,
    });
    await waitUntil(() => deliveries.length >= 1, { what: 'the batch delivered' });
    // Twice the ack wait passes while the batch is held: kept alive, it is not redelivered.
    await waitUntil(async () => (await backlog()).ackPending === 1, { what: 'in progress' });
    const since = Date.now();
    await waitUntil(() => Date.now() - since > 2_200, { intervalMs: 100, what: 'two ack waits' });
    release();
    await waitUntil(async () => (await backlog()).ackPending === 0, { what: 'acked' });
    await running.stop();
    expect(deliveries).toEqual([1]);
  });
});
