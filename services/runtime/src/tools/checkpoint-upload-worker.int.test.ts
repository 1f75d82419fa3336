import { createHash, randomBytes } from 'node:crypto';
import { BlobStore, type BusConnection, connectBus } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { type NatsServerProcess, startNatsServer, waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadThread } from './checkpoint-upload-worker.ts';

let nats: NatsServerProcess;
let bus: BusConnection;
const prefix = `awup${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  // A broker of the test's own: it is stopped and started again.
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'upload-thread-int' });
  await BlobStore.create(bus.nc, names(prefix)).ready();
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await nats?.dispose();
});

const hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('checkpoint uploads on their own thread (0244)', () => {
  it('stores what it was given across a broker restart, and a flush waits for all of it', async () => {
    const uploads = uploadThread({
      servers: nats.url,
      auth: {},
      name: 'upload-thread-int',
      prefix,
      replicas: 1,
    });
    try {
      const before = randomBytes(8 * 1024);
      uploads.putBytes(before);
      uploads.putDocument('checkpoint.s1.cp_1', { v: 1 });
      await uploads.flush();
      // Uploads queued while the broker restarts go once it is back.
      const restarted = nats.restart();
      const during = [randomBytes(4 * 1024), randomBytes(4 * 1024)];
      for (const b of during) uploads.putBytes(b);
      uploads.putDocument('checkpoint.s1.cp_2', { v: 2 });
      await restarted;
      await uploads.flush();
      // The test's own connection comes back on its own time.
      await waitUntil(() => bus.connected, { timeoutMs: 15_000, what: 'the reader to reconnect' });
      const reader = BlobStore.reader(bus.nc, names(prefix));
      for (const b of [before, ...during]) {
        expect(Buffer.from((await reader.getBytes(hex(b))) ?? [])).toEqual(b);
      }
      expect(await reader.getDocument('checkpoint.s1.cp_2')).toEqual({ v: 2 });
    } finally {
      await uploads.close();
    }
  }, 60_000);

  it('a flush with nothing uploaded yet starts no thread and resolves', async () => {
    const uploads = uploadThread({
      servers: nats.url,
      auth: {},
      name: 'idle',
      prefix,
      replicas: 1,
    });
    await uploads.flush();
    await uploads.close();
  });
});
