import { parentPort, workerData } from 'node:worker_threads';
import { BlobStore, connectBus } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import type { ToUploadThread, UploadThreadData } from './checkpoint-upload-worker.ts';
import { UploadQueue } from './checkpoint-uploads.ts';

// The upload thread of a runtime (docs/decisions/0244): its own connection to the broker
// and its own queue, so storing checkpoint contents in the object store costs the
// runtime's event loop one message per upload, not the object store's hashing and
// publishing.
const port = parentPort;
if (port === null) throw new Error('checkpoint-upload-thread runs as a worker thread');
const data = workerData as UploadThreadData;
const connected = connectBus({
  servers: data.servers,
  auth: data.auth,
  name: data.name,
  noAsyncTraces: true,
});
const blobs = connected.then((bus) =>
  BlobStore.create(bus.nc, names(data.prefix), { replicas: data.replicas }),
);
// A failed connection fails every upload (and so every flush), not the thread.
blobs.catch(() => undefined);
const queue = new UploadQueue(() => blobs);
port.on('message', (m: ToUploadThread) => {
  if (m.kind === 'bytes') queue.putBytes(m.bytes);
  else if (m.kind === 'document') queue.putDocument(m.name, m.value);
  else {
    void queue.flush().then(
      () => port.postMessage({ kind: 'flushed', id: m.id }),
      (err: unknown) =>
        port.postMessage({
          kind: 'flushed',
          id: m.id,
          error: err instanceof Error ? err.message : String(err),
        }),
    );
    if (m.kind === 'close') {
      void queue
        .flush()
        .catch(() => undefined)
        .then(() => connected)
        .then((bus) => bus.close())
        .catch(() => undefined)
        .finally(() => port.close());
    }
  }
});
