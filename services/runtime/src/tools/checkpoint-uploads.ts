import type { BlobStore } from '@agentwire/bus';

/**
 * Where a checkpoint's contents and manifests go after the capture (docs/decisions/0225,
 * 0244): queued at once, stored in order behind the tools, waited for by `flush`.
 */
export interface CheckpointUploads {
  /** Stores `bytes` under their SHA-256 (the digest the capture computed). */
  putBytes(bytes: Uint8Array): void;
  /** Stores a manifest; one still queued under the same name is replaced, not sent twice. */
  putDocument(name: string, value: unknown): void;
  /** Waits for everything queued so far; rejects with the first failure since the last. */
  flush(): Promise<void>;
  /** Flushes, then releases what the uploads hold (a connection, a thread). */
  close(): Promise<void>;
}

type Item =
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'document'; readonly name: string; value: unknown };

/**
 * The uploads run one after another on `blobs`, in the order they were queued (a manifest
 * after the contents it names); a manifest queued again before it ran goes once, as it is
 * then. Used on the runtime's own thread, and inside the upload thread (0244).
 */
export class UploadQueue implements CheckpointUploads {
  readonly #blobs: () => Promise<BlobStore>;
  readonly #items: Item[] = [];
  readonly #documents = new Map<string, Item & { kind: 'document' }>();
  #running: Promise<void> = Promise.resolve();
  #active = false;
  #failure: unknown;

  constructor(blobs: BlobStore | (() => Promise<BlobStore>)) {
    this.#blobs = typeof blobs === 'function' ? blobs : () => Promise.resolve(blobs);
  }

  putBytes(bytes: Uint8Array): void {
    this.#push({ kind: 'bytes', bytes });
  }

  putDocument(name: string, value: unknown): void {
    const queued = this.#documents.get(name);
    if (queued !== undefined) {
      queued.value = value;
      return;
    }
    const item = { kind: 'document' as const, name, value };
    this.#documents.set(name, item);
    this.#push(item);
  }

  async flush(): Promise<void> {
    while (this.#active) await this.#running;
    if (this.#failure !== undefined) {
      const err = this.#failure;
      this.#failure = undefined;
      throw err;
    }
  }

  close(): Promise<void> {
    return this.flush();
  }

  #push(item: Item): void {
    this.#items.push(item);
    if (this.#active) return;
    this.#active = true;
    this.#running = this.#drain();
  }

  async #drain(): Promise<void> {
    // The last empty check and the end of `#active` happen in one step: a push after it
    // starts a drain of its own.
    for (let item = this.#items.shift(); item !== undefined; item = this.#items.shift()) {
      // A manifest queued again from here on is a new upload.
      if (item.kind === 'document') this.#documents.delete(item.name);
      try {
        const blobs = await this.#blobs();
        if (item.kind === 'bytes') await blobs.putBytes(item.bytes);
        else await blobs.putDocument(item.name, item.value);
      } catch (err) {
        this.#failure ??= err;
      }
    }
    this.#active = false;
  }
}
