import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEvent, names } from '@agentwire/contracts';
import { withSequenceNumber } from '@agentwire/contracts/testing';
import { type NatsServerProcess, startNatsServer } from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusError } from './bus-error.ts';
import { provision } from './provision.ts';
import { publishCommand } from './publish-command.ts';
import { publishEvent } from './publish-event.ts';
import { PublishPipeline } from './publish-pipeline.ts';
import { durableEvent, traceId } from './test-support.ts';

/** This server's `max_payload`: small, so that one event can exceed it (issue 18). */
const MAX_PAYLOAD = 16 * 1024;

let nats: NatsServerProcess;
let nc: NatsConnection;
const n = names('refusal');

beforeAll(async () => {
  const config = path.join(tmpdir(), `aw-refusal-${process.pid}.conf`);
  await writeFile(config, `max_payload: ${MAX_PAYLOAD}\n`);
  nats = await startNatsServer({ configFile: config });
  nc = await connect({ servers: nats.url });
  await provision(nc, n);
});

afterAll(async () => {
  await nc?.close();
  await nats?.dispose();
});

function bigEvent(sequenceNumber: number, bytes: number) {
  const event = createEvent({
    id: `big-${sequenceNumber}-${bytes}`,
    sessionId: 's-big',
    turnId: null,
    type: 'interrupt',
    payload: { reason: 'x'.repeat(bytes) },
    timestamp: 1,
    traceId: traceId(),
  });
  return withSequenceNumber(event, sequenceNumber);
}

describe('a publish that can never be stored is refused, not retried (issue 18)', () => {
  it('an event over max_payload: publish_refused, not retryable, naming the limit; nothing stored', async () => {
    expect(nc.info?.max_payload).toBe(MAX_PAYLOAD);
    const pipeline = new PublishPipeline(nc);
    for (const js of [pipeline, jetstream(nc)]) {
      const error = await publishEvent(js, n, bigEvent(1, MAX_PAYLOAD + 10), {
        previousDurableSequence: 0,
        expectedLastSubjectSequence: 0,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BusError);
      expect(error).toMatchObject({ code: 'publish_refused', retryable: false });
      expect(String((error as Error).message)).toMatch(/exceeds the server's max_payload/);
    }
    pipeline.close();
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(n.eventsStream)).state.messages).toBe(0);
    // The connection is fine: the next event goes out.
    const ok = await publishEvent(jetstream(nc), n, durableEvent('s-big', 1), {
      previousDurableSequence: 0,
      expectedLastSubjectSequence: 0,
    });
    expect(ok.kind).toBe('ok');
  });

  it('an event over a stream limit (max_msg_size): the broker refuses it, publish_refused', async () => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(n.eventsStream);
    await jsm.streams.update(n.eventsStream, { ...info.config, max_msg_size: 4_096 });
    try {
      const error = await publishEvent(jetstream(nc), n, bigEvent(2, 8_000), {
        previousDurableSequence: 1,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'publish_refused', retryable: false });
      expect(String((error as Error).message)).toMatch(/refused by the broker/);
    } finally {
      await jsm.streams.update(n.eventsStream, { ...info.config, max_msg_size: -1 });
    }
  });

  it('a command over max_payload: publish_refused too', async () => {
    const error = await publishCommand(jetstream(nc), n, {
      commandId: 'cmd-big',
      sessionId: 's-big',
      issuedAt: 1,
      traceId: traceId(),
      kind: 'ensure_session',
      session: { title: 'x'.repeat(MAX_PAYLOAD), titleSource: 'default' },
    } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'publish_refused', retryable: false });
  });
});
