import { createHash } from 'node:crypto';
import type { Names } from '@agentwire/contracts';
import { type JetStreamClient, jetstream } from '@nats-io/jetstream';
import { type ObjectStore, Objm, setSha256Backend } from '@nats-io/obj';
import { type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
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

/**
 * The object store bucket a frontend puts a file in for a request too large to carry it
 * (an import, docs/decisions/0241): apart from the contents services offload, so that a
 * frontend that may write here cannot touch those, and emptied by age.
 */
export function uploadBucket(n: Names): string {
  return `${n.prefix}_uploads`;
}

/** How long an upload stays: long enough for the request it was made for. */
const UPLOAD_TTL_MS = 60 * 60 * 1000;

/** Whether `value` is a blob reference. */
export function isBlobRef(value: string): boolean {
  return value.startsWith(BLOB_REF_PREFIX) && REF.test(value);
}

// The object store hashes every chunk it writes and reads; its default is a pure-JS
// SHA-256 (for browsers), several times the CPU of Node's own. Every process here is Node.
setSha256Backend('native');

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The object store's default chunk: an object up to this size is one chunk. */
const CHUNK_BYTES = 128 * 1024;
/** Names the one-chunk path writes: what the object store's subject encoding reads back. */
const PLAIN_NAME = /^[\x21-\x7e]{1,512}$/;

/**
 * Content-addressed storage of large strings in a NATS object store bucket
 * (docs/decisions/0162): `put` names each content by its SHA-256 and stores it once, `get`
 * reads it back by reference. The bucket is opened on first use, so a reader that never
 * meets a reference never touches it; the writer creates it (`create`).
 */
export class BlobStore {
  readonly #open: () => Promise<ObjectStore>;
  readonly #bucketName: string;
  readonly #js: JetStreamClient | undefined;
  #store: Promise<ObjectStore> | undefined;

  private constructor(bucket: string, open: () => Promise<ObjectStore>, js?: JetStreamClient) {
    this.#bucketName = bucket;
    this.#open = open;
    this.#js = js;
  }

  /** A writer's store: creates the bucket if missing (file storage, `replicas`). */
  static create(nc: NatsConnection, n: Names, options: { replicas?: number } = {}): BlobStore {
    return new BlobStore(
      blobBucket(n),
      () =>
        new Objm(nc).create(blobBucket(n), {
          storage: 'file' as never,
          replicas: options.replicas ?? 1,
          description: 'agentwire: contents too large for their message (0162)',
        }),
      jetstream(nc),
    );
  }

  /**
   * The uploads bucket ({@link uploadBucket}), made on first use by whoever uses it first
   * (a frontend putting a file, or the runtime reading it): file storage, one replica, every
   * upload gone an hour after it was written.
   */
  static uploads(nc: NatsConnection, n: Names): BlobStore {
    return new BlobStore(uploadBucket(n), () =>
      new Objm(nc).create(uploadBucket(n), {
        storage: 'file' as never,
        ttl: UPLOAD_TTL_MS * 1_000_000,
        description: 'agentwire: files frontends upload for one request (0241)',
      }),
    );
  }

  /** A reader's store: opens the existing bucket on first use. */
  static reader(js: JetStreamClient | NatsConnection, n: Names): BlobStore {
    return new BlobStore(blobBucket(n), () => new Objm(js).open(blobBucket(n)));
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
    const sha = createHash('sha256').update(bytes).digest();
    const hex = sha.toString('hex');
    const store = await this.#bucket();
    // Stored again when present: the one-chunk write replaces it with the same bytes.
    if (await this.#putOneChunk(hex, bytes, sha)) return hex;
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
    const store = await this.#bucket();
    const bytes = encoder.encode(JSON.stringify(value));
    if (await this.#putOneChunk(name, bytes, createHash('sha256').update(bytes).digest())) return;
    await store.putBlob({ name }, bytes);
  }

  /** The JSON document stored under `name`, or undefined. */
  async getDocument(name: string): Promise<unknown> {
    const store = await this.#bucket();
    let data: Uint8Array | null;
    try {
      data = await store.getBlob(name);
    } catch (err) {
      // Replaced between the read of its metadata and of its chunk (a one-chunk object
      // keeps its chunk subject): the second read sees the new one whole.
      if (!(err instanceof Error && /digests do not match/.test(err.message))) throw err;
      data = await store.getBlob(name);
    }
    return data === null ? undefined : (JSON.parse(decoder.decode(data)) as unknown);
  }

  /**
   * Writes an object of at most one chunk in the object store's own layout (ADR-20), so
   * every object store client reads it, with two publishes instead of the client's four
   * to six calls (a lookup, the chunk, the metadata, a purge of the old chunks;
   * docs/decisions/0244). The chunk's subject is derived from the name and both messages
   * roll up their subject, so a rewrite replaces the object and leaves no chunk behind.
   * False when the object is not for this path (larger, an unusual name, a reader).
   */
  async #putOneChunk(name: string, bytes: Uint8Array, sha: Buffer): Promise<boolean> {
    const js = this.#js;
    if (js === undefined || bytes.byteLength > CHUNK_BYTES || !PLAIN_NAME.test(name)) {
      return false;
    }
    const bucket = this.#bucketName;
    const nuid = createHash('sha256').update(name).digest('hex');
    const rollup = natsHeaders();
    rollup.set('Nats-Rollup', 'sub');
    if (bytes.byteLength > 0) {
      await js.publish(`$O.${bucket}.C.${nuid}`, bytes, { headers: rollup });
    }
    const info = {
      name,
      description: '',
      options: { max_chunk_size: CHUNK_BYTES },
      bucket,
      nuid,
      size: bytes.byteLength,
      chunks: bytes.byteLength > 0 ? 1 : 0,
      mtime: new Date().toISOString(),
      digest: `SHA-256=${urlSafe(sha.toString('base64'))}`,
      deleted: false,
    };
    const meta = `$O.${bucket}.M.${urlSafe(Buffer.from(name, 'latin1').toString('base64'))}`;
    await js.publish(meta, JSON.stringify(info), { headers: rollup });
    return true;
  }

  #bucket(): Promise<ObjectStore> {
    this.#store ??= this.#open().catch((err: unknown) => {
      this.#store = undefined;
      throw err;
    });
    return this.#store;
  }
}

/** Standard base64 to the object store's URL-safe padded form. */
function urlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}
