import { createEvent, names } from '@agentwire/contracts';
import { withSequenceNumber } from '@agentwire/contracts/testing';
import type { TestEnvironment } from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore, blobBucket, isBlobRef } from './blob-store.ts';
import { followSession } from './follow-session.ts';
import { BLOBS_HEADER, offloadBlobs } from './offload-blobs.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { deprovision, setup, traceId } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;

beforeAll(async () => {
  ({ env, nc } = await setup());
});

afterAll(async () => {
  const n = names(env.prefix);
  await deprovision(nc, n);
  await nc.close();
  await env.dispose();
});

const BOUND = 64 * 1024;

function resultEvent(sid: string, seq: number, content: string) {
  const event = createEvent({
    id: `big-${sid}-${seq}`,
    sessionId: sid,
    turnId: 't1',
    type: 'tool_call_result',
    payload: {
      toolCallId: `c${seq}`,
      toolName: 'read_file',
      result: { success: true, content },
      duration: 1,
    },
    timestamp: 1,
    traceId: traceId(),
  });
  return withSequenceNumber(event, seq);
}

describe('a body over the bound goes to the blob store, once (issue 18, 0162)', () => {
  it('publishes under the bound with a reference, and a follower reads the whole event back', async () => {
    const n = names(env.prefix);
    await provision(nc, n);
    const store = BlobStore.create(nc, n);
    await store.ready();
    const big = 'x'.repeat(300_000);
    const js = jetstream(nc);
    for (const seq of [1, 2]) {
      await publishEvent(js, n, resultEvent('s-blob', seq, big), {
        previousDurableSequence: seq - 1,
        offload: { store, maxBytes: BOUND },
      });
    }
    const jsm = await jetstreamManager(nc);
    const stored = await jsm.streams.getMessage(n.eventsStream, { seq: 1 });
    expect(stored?.data.length).toBeLessThan(BOUND);
    expect(stored?.header.get(BLOBS_HEADER)).toBe('1');
    const body = JSON.parse(new TextDecoder().decode(stored?.data)) as {
      payload: { result: { content: string } };
    };
    expect(isBlobRef(body.payload.result.content)).toBe(true);
    expect(body.payload.result.content).toMatch(/:300000$/);
    // Content-addressed: the same content twice is one object.
    const blobs = await jsm.streams.info(`OBJ_${blobBucket(n)}`);
    expect(blobs.state.bytes).toBeGreaterThan(300_000);
    expect(blobs.state.bytes).toBeLessThan(2 * 300_000);

    const follower = followSession(js, n, 's-blob', { afterSequence: 0 });
    const seen: string[] = [];
    for await (const event of follower) {
      if (event.type === 'tool_call_result') seen.push(event.payload.result.content);
      if (seen.length === 2) break;
    }
    await follower.stop();
    expect(seen).toEqual([big, big]);
  });

  it('refuses a body that stays over the bound with nothing large enough to offload', async () => {
    const store = BlobStore.create(nc, names(env.prefix));
    const many = JSON.stringify({ items: Array.from({ length: 10_000 }, (_, i) => `item ${i}`) });
    await expect(offloadBlobs(many, { store, maxBytes: 10_000 })).rejects.toMatchObject({
      code: 'publish_refused',
    });
    const small = JSON.stringify({ a: 'b' });
    await expect(offloadBlobs(small, { store, maxBytes: 10_000 })).resolves.toEqual({
      json: small,
      offloaded: 0,
    });
  });
});
