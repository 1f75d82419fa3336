import { createHash, randomBytes } from 'node:crypto';
import { names } from '@agentwire/contracts';
import type { TestEnvironment } from '@agentwire/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore, blobBucket } from './blob-store.ts';
import { deprovision, setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;

beforeAll(async () => {
  ({ env, nc } = await setup());
});

afterAll(async () => {
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

/** Messages the bucket's stream holds. */
async function messagesOf(bucket: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  return (await jsm.streams.info(`OBJ_${bucket}`)).state.messages;
}

describe('one-chunk objects in the object store layout (0244)', () => {
  it('every object store client reads what putBytes and putDocument wrote, digests checked', async () => {
    const n = names(env.prefix);
    const blobs = BlobStore.create(nc, n);
    await blobs.ready();
    const bytes = randomBytes(10 * 1024);
    const hex = await blobs.putBytes(bytes);
    expect(hex).toBe(createHash('sha256').update(bytes).digest('hex'));
    await blobs.putDocument('checkpoint.s1.cp_1', { a: 1, text: 'é and ü' });
    await blobs.putBytes(new Uint8Array(0));

    // The client's own reader: metadata, chunks and the digest it verifies.
    const store = await new Objm(nc).open(blobBucket(n));
    const info = await store.info(hex);
    expect(info).toMatchObject({ size: bytes.length, chunks: 1, deleted: false });
    expect(Buffer.from((await store.getBlob(hex)) ?? [])).toEqual(bytes);
    const empty = createHash('sha256').update(new Uint8Array(0)).digest('hex');
    expect((await store.getBlob(empty))?.length).toBe(0);
    // And another instance's reader.
    const reader = BlobStore.reader(nc, n);
    expect(await reader.getDocument('checkpoint.s1.cp_1')).toEqual({ a: 1, text: 'é and ü' });
    expect(Buffer.from((await reader.getBytes(hex)) ?? [])).toEqual(bytes);
  });

  it('a rewrite replaces the object and leaves no chunk behind; the same bytes twice are one object', async () => {
    const n = names(env.prefix);
    const blobs = BlobStore.create(nc, n);
    await blobs.ready();
    const bucket = blobBucket(n);
    const before = await messagesOf(bucket);
    await blobs.putDocument('checkpoint.s2.cp_1', { version: 1 });
    await blobs.putDocument('checkpoint.s2.cp_1', { version: 2, after: ['x'] });
    const bytes = randomBytes(4096);
    await blobs.putBytes(bytes);
    await blobs.putBytes(bytes);
    // One chunk and one metadata message each.
    expect((await messagesOf(bucket)) - before).toBe(4);
    expect(await BlobStore.reader(nc, n).getDocument('checkpoint.s2.cp_1')).toEqual({
      version: 2,
      after: ['x'],
    });
  });

  it('an object over one chunk, or with an unusual name, goes through the client as before', async () => {
    const n = names(env.prefix);
    const blobs = BlobStore.create(nc, n);
    await blobs.ready();
    const large = randomBytes(300 * 1024);
    const hex = await blobs.putBytes(large);
    const store = await new Objm(nc).open(blobBucket(n));
    expect((await store.info(hex))?.chunks).toBe(3);
    expect(Buffer.from((await blobs.getBytes(hex)) ?? [])).toEqual(large);
    await blobs.putDocument('a name with spaces ü', { ok: true });
    expect(await blobs.getDocument('a name with spaces ü')).toEqual({ ok: true });
  });
});
