import { Worker } from 'node:worker_threads';
import type { ConnectBusOptions } from '@agentwire/bus';
import type { Logger } from '@agentwire/telemetry';
import type { CheckpointUploads } from './checkpoint-uploads.ts';

/** What the upload thread connects with: serialisable, no connection crosses threads. */
export interface UploadThreadData {
  readonly servers: ConnectBusOptions['servers'];
  readonly auth: NonNullable<ConnectBusOptions['auth']>;
  /** The thread's connection name, shown by the server. */
  readonly name: string;
  readonly prefix: string;
  readonly replicas: number;
}

/** Messages to the upload thread, in the order they are to be stored. */
export type ToUploadThread =
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'document'; readonly name: string; readonly value: unknown }
  | { readonly kind: 'flush' | 'close'; readonly id: number };

type FromUploadThread = { readonly kind: 'flushed'; readonly id: number; readonly error?: string };

const THREAD = new URL('./checkpoint-upload-thread.ts', import.meta.url);

/**
 * Checkpoint uploads on a thread of their own (docs/decisions/0244). The object store's
 * client costs several times a raw publish in CPU (a lookup, a stream of chunks, a digest,
 * the metadata, a purge on replace); on the runtime's loop that is time every session's
 * events wait for. Here the loop pays one message per upload. The thread starts at the
 * first upload; if it dies, what it held is reported by the next flush, and the next
 * upload starts another.
 */
export function uploadThread(data: UploadThreadData, logger?: Logger): CheckpointUploads {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  let lost: Error | undefined;

  const start = (): Worker => {
    if (worker !== undefined) return worker;
    const w = new Worker(THREAD, { workerData: data, name: data.name });
    // A runtime that forgets to close does not stay alive for its uploads.
    w.unref();
    w.on('message', (m: FromUploadThread) => {
      const waiter = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error === undefined) waiter?.resolve();
      else waiter?.reject(new Error(`checkpoint upload failed: ${m.error}`));
    });
    const gone = (why: Error) => {
      if (worker !== w) return;
      worker = undefined;
      logger?.warn({ err: why }, 'checkpoint upload thread ended');
      // Uploads it still held may not be stored: the next flush says so.
      lost ??= why;
      for (const waiter of waiting.values()) waiter.reject(why);
      waiting.clear();
    };
    w.on('error', (err) => gone(err));
    w.on('exit', (code) => gone(new Error(`checkpoint upload thread exited with code ${code}`)));
    worker = w;
    return w;
  };

  const ask = (kind: 'flush' | 'close'): Promise<void> => {
    const w = worker;
    if (w === undefined) return Promise.resolve();
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      w.postMessage({ kind, id } satisfies ToUploadThread);
    });
  };

  return {
    putBytes(bytes) {
      start().postMessage({ kind: 'bytes', bytes } satisfies ToUploadThread);
    },
    putDocument(name, value) {
      start().postMessage({ kind: 'document', name, value } satisfies ToUploadThread);
    },
    async flush() {
      try {
        await ask('flush');
      } catch (err) {
        lost = undefined;
        throw err;
      }
      const failed = lost;
      lost = undefined;
      if (failed !== undefined) throw failed;
    },
    async close() {
      const w = worker;
      if (w === undefined) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      try {
        await ask('close');
      } finally {
        worker = undefined;
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
        await w.terminate();
      }
    },
  };
}
