import { names } from '@agentwire/contracts';
import type { TestEnvironment } from '@agentwire/testing';
import { JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { PublishPipeline } from './publish-pipeline.ts';
import { deprovision, durableEvent, setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;
let pipeline: PublishPipeline;

beforeAll(async () => {
  ({ env, nc } = await setup());
  await provision(nc, names(env.prefix));
  pipeline = new PublishPipeline(nc);
});

afterAll(async () => {
  pipeline.close();
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

describe('PublishPipeline', () => {
  it('gives publishEvent the same ok, duplicate and fenced outcomes as js.publish', async () => {
    const n = names(env.prefix);
    const jsm = await jetstreamManager(nc);
    const sid = 's-pipe-fence';
    const first = await publishEvent(pipeline, n, durableEvent(sid, 1), {
      expectedLastSubjectSequence: 0,
      previousDurableSequence: 0,
    });
    if (first.kind !== 'ok') throw new Error(`first publish: ${first.kind}`);
    const second = await publishEvent(pipeline, n, durableEvent(sid, 2), {
      expectedLastSubjectSequence: first.streamSequence,
      previousDurableSequence: 1,
    });
    if (second.kind !== 'ok') throw new Error(`second publish: ${second.kind}`);
    const before = (await jsm.streams.info(n.eventsStream)).state.messages;

    const retried = await publishEvent(pipeline, n, durableEvent(sid, 2), {
      expectedLastSubjectSequence: first.streamSequence,
      previousDurableSequence: 1,
    });
    expect(retried).toEqual({ kind: 'duplicate', streamSequence: second.streamSequence });
    const stale = await publishEvent(pipeline, n, durableEvent(sid, 3, 'other-writer'), {
      expectedLastSubjectSequence: first.streamSequence,
      previousDurableSequence: 2,
    });
    expect(stale).toEqual({ kind: 'fenced', actualLastSequence: second.streamSequence });
    expect((await jsm.streams.info(n.eventsStream)).state.messages).toBe(before);
  });

  it('matches every ack to its own publish when a thousand are in flight', async () => {
    const n = names(env.prefix);
    const jsm = await jetstreamManager(nc);
    const subject = n.eventSubject('s-pipe-many');
    const acks = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => pipeline.publish(subject, JSON.stringify({ i }))),
    );
    expect(new Set(acks.map((a) => a.seq)).size).toBe(1_000);
    for (const [i, ack] of acks.entries()) {
      expect(ack.stream).toBe(n.eventsStream);
      expect(ack.duplicate).toBe(false);
      const stored = await jsm.streams.getMessage(n.eventsStream, { seq: ack.seq });
      expect(stored?.json()).toEqual({ i });
    }
  });

  it('rejects a fenced publish with the broker error (10071) and keeps the headers it was given', async () => {
    const n = names(env.prefix);
    const subject = n.eventSubject('s-pipe-raw');
    const h = headers();
    h.set('Nats-Msg-Id', 'pipe-raw-1');
    const ok = await pipeline.publish(subject, 'a', {
      headers: h,
      expect: { lastSubjectSequence: 0 },
    });
    const error = await pipeline
      .publish(subject, 'b', { headers: headers(), expect: { lastSubjectSequence: 0 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamApiError);
    expect((error as JetStreamApiError).code).toBe(10071);
    const again = await pipeline.publish(subject, 'a', { headers: h });
    expect(again).toMatchObject({ seq: ok.seq, duplicate: true });
  });

  it('fails a publish no stream takes with a retryable publish_failed, and goes on', async () => {
    const error = await pipeline.publish(`${env.prefix}-nostream.x`, 'x').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'BusError', code: 'publish_failed', retryable: true });
    const n = names(env.prefix);
    await expect(pipeline.publish(n.eventSubject('s-pipe-after'), 'y')).resolves.toMatchObject({
      stream: n.eventsStream,
    });
  });

  it('times out a publish whose ack never comes, and rejects everything once closed', async () => {
    const other = await setup();
    try {
      const n = names(other.env.prefix);
      await provision(other.nc, n);
      const short = new PublishPipeline(other.nc, { timeoutMs: 200 });
      // A core subscriber answers nothing: no stream holds this subject, nobody acks.
      const silent = other.nc.subscribe(`${other.env.prefix}.silent`);
      const timedOut = await short
        .publish(`${other.env.prefix}.silent`, 'x')
        .catch((e: unknown) => e);
      expect(timedOut).toMatchObject({ code: 'publish_failed', retryable: true });
      expect(String((timedOut as Error).message)).toMatch(/within its timeout/);

      const pending = short.publish(`${other.env.prefix}.silent`, 'x', { timeout: 60_000 });
      short.close();
      await expect(pending).rejects.toMatchObject({
        code: 'publish_failed',
        cause: { message: 'the publish pipeline was closed' },
      });
      silent.unsubscribe();
      await expect(short.publish(n.eventSubject('s'), 'x')).rejects.toMatchObject({
        code: 'publish_failed',
      });
      await deprovision(other.nc, n);
    } finally {
      await other.nc.close();
      await other.env.dispose();
    }
  });
});
