import { createHash } from 'node:crypto';
import type { Names } from '@agentwire/contracts';
import type { JetStreamClient } from '@nats-io/jetstream';
import { type ObjectStore, Objm, setSha256Backend } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { BusError } from './bus-error.ts';

/**
 * How a string field that was too large to travel in its message reads instead
 * (docs/decisions/0162): `aw-blob:sha256:<64 hex>:<UTF-8 bytes>`, the key of its content in
 * the prefix's object store bucket ({@link blobBucket}).
 */
const BLOB_REF_PREFIX = 'aw-blob:sha256:';
const REF = /^aw-blob:sha256:([0-9a-f]{64}):(\d+)$/;

/** The object store bucket holding the prefix's offloaded contents. */
export function blobBucket(n: Names): string {
  return `${n.prefix}_blobs`;
}

/** Whether `value` is a blob reference. */
export function isBlobRef(value: string): boolean {
  return value.startsWith(BLOB_REF_PREFIX) && REF.test(value);
}

// The object store hashes every chunk it writes and reads; its default is a pure-JS
// SHA-256 (for browsers), several times the CPU of Node's own. Every process here is Node.
setSha256Backend('native');

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Content-addressed storage of large strings in a NATS object store bucket
 * (docs/decisions/0162): `put` names each content by its SHA-256 and stores it once, `get`
 * reads it back by reference. The bucket is opened on first use, so a reader that never
 * meets a reference never touches it; the writer creates it (`create`).
 */
export class BlobStore {
  readonly #open: () => Promise<ObjectStore>;
  #store: Promise<ObjectStore> | undefined;

  private constructor(open: () => Promise<ObjectStore>) {
    this.#open = open;
  }

  /** A writer's store: creates the bucket if missing (file storage, `replicas`). */
  static create(nc: NatsConnection, n: Names, options: { replicas?: number } = {}): BlobStore {
    return new BlobStore(() =>
      new Objm(nc).create(blobBucket(n), {
        storage: 'file' as never,
        replicas: options.replicas ?? 1,
        description: 'agentwire: contents too large for their message (0162)',
      }),
    );
  }

  /** A reader's store: opens the existing bucket on first use. */
  static reader(js: JetStreamClient | NatsConnection, n: Names): BlobStore {
    return new BlobStore(() => new Objm(js).open(blobBucket(n)));
  }

  /** Opens (or creates) the bucket now; a writer calls it at start to fail early. */
  async ready(): Promise<void> {
    await this.#bucket();
  }

  /** Stores `text` once under its SHA-256 and returns its reference. */
  async put(text: string): Promise<string> {
    const bytes = encoder.encode(text);
    const hex = createHash('sha256').update(bytes).digest('hex');
    try {
      const store = await this.#bucket();
      const known = await store.info(hex);
      if (known === null || known.deleted === true) await store.putBlob({ name: hex }, bytes);
    } catch (cause) {
      // The broker may be away: the caller retries the whole publish, this put included.
      throw new BusError(`storing a blob of ${bytes.length} bytes failed`, {
        code: 'publish_failed',
        retryable: true,
        cause,
      });
    }
    return `${BLOB_REF_PREFIX}${hex}:${bytes.length}`;
  }

  /** The content `ref` names; throws {@link BusError} `blob_missing` when it is not stored. */
  async get(ref: string): Promise<string> {
    const match = REF.exec(ref);
    if (match === null) {
      throw new BusError(`not a blob reference: ${ref.slice(0, 100)}`, { code: 'blob_missing' });
    }
    const hex = match[1] ?? '';
    const store = await this.#bucket();
    const data = await store.getBlob(hex);
    if (data === null) {
      throw new BusError(`blob ${hex} is not in the object store`, { code: 'blob_missing' });
    }
    return decoder.decode(data);
  }

  /**
   * Stores `bytes` once under their SHA-256 (the same key {@link put} gives the same
   * content) and returns the 64 hex digits.
   */
  async putBytes(bytes: Uint8Array): Promise<string> {
    const hex = createHash('sha256').update(bytes).digest('hex');
    const store = await this.#bucket();
    const known = await store.info(hex);
    if (known === null || known.deleted === true) await store.putBlob({ name: hex }, bytes);
    return hex;
  }

  /** The bytes stored under `hex` by {@link putBytes} or {@link put}; undefined when absent. */
  async getBytes(hex: string): Promise<Uint8Array | undefined> {
    const data = await (await this.#bucket()).getBlob(hex);
    return data ?? undefined;
  }

  /** Stores a small JSON document under `name` (not content-addressed: replaced on write). */
  async putDocument(name: string, value: unknown): Promise<void> {
    await (await this.#bucket()).putBlob({ name }, encoder.encode(JSON.stringify(value)));
  }

  /** The JSON document stored under `name`, or undefined. */
  async getDocument(name: string): Promise<unknown> {
    const data = await (await this.#bucket()).getBlob(name);
    return data === null ? undefined : (JSON.parse(decoder.decode(data)) as unknown);
  }

  #bucket(): Promise<ObjectStore> {
    this.#store ??= this.#open().catch((err: unknown) => {
      this.#store = undefined;
      throw err;
    });
    return this.#store;
  }
}
