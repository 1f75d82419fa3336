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
  /** Wakes a drain that waits with nothing queued (see {@link #drain}). */
  #wake: (() => void) | undefined;
  /** The last upload failed every attempt (see {@link #store}). */
  #givenUp = false;

  readonly #retryMs: readonly number[];

  /**
   * `retryMs`: the waits before each new attempt of a failed upload (default 250 ms, 1 s,
   * 4 s: a broker that restarts is back within them); the failure is reported after the last.
   */
  constructor(
    blobs: BlobStore | (() => Promise<BlobStore>),
    options: { readonly retryMs?: readonly number[] } = {},
  ) {
    this.#blobs = typeof blobs === 'function' ? blobs : () => Promise.resolve(blobs);
    this.#retryMs = options.retryMs ?? RETRY_MS;
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
    if (this.#active) {
      this.#wake?.();
      return;
    }
    this.#active = true;
    this.#running = this.#drain();
  }

  /**
   * Contents go up to {@link CONTENTS_AT_ONCE} at a time (each awaits its acknowledgement);
   * a manifest waits until every content queued before it is stored, then goes alone, so a
   * stored manifest never names a content still missing.
   */
  async #drain(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      const item = this.#items.shift();
      if (item === undefined) {
        // The last empty check and the end of `#active` happen in one step: a push after
        // it starts a drain of its own.
        if (inFlight.size === 0) break;
        // Until one in flight is stored or another upload is queued.
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          void Promise.race(inFlight).then(resolve);
        });
        this.#wake = undefined;
        continue;
      }
      if (item.kind === 'document') {
        await Promise.all(inFlight);
        // A manifest queued again from here on is a new upload.
        this.#documents.delete(item.name);
        await this.#store(item);
        continue;
      }
      if (inFlight.size >= CONTENTS_AT_ONCE) await Promise.race(inFlight);
      const stored: Promise<void> = this.#store(item).finally(() => inFlight.delete(stored));
      inFlight.add(stored);
    }
    this.#active = false;
  }

  /**
   * Stores one item, again after each wait of `retryMs` while it fails. Once one has
   * failed every attempt, the next ones are tried once each until one is stored again: a
   * broker that stays away costs a flush one series of waits, not one per upload.
   */
  async #store(item: Item): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const blobs = await this.#blobs();
        if (item.kind === 'bytes') await blobs.putBytes(item.bytes);
        else await blobs.putDocument(item.name, item.value);
        this.#givenUp = false;
        return;
      } catch (err) {
        const wait = this.#givenUp ? undefined : this.#retryMs[attempt];
        if (wait === undefined) {
          this.#failure ??= err;
          this.#givenUp = true;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}

/** Contents stored at once by one queue. */
const CONTENTS_AT_ONCE = 8;

/** Waits before each new attempt of a failed upload. */
const RETRY_MS: readonly number[] = [250, 1_000, 4_000];

/** When held uploads go: after this long without a tool running... */
const QUIET_MS = 25;
/** ...or once the oldest has waited this long, tools running or not. */
const HOLD_MS = 1_000;

/**
 * Holds uploads while the tools they snapshot run (docs/decisions/0244): a model step's
 * tools run back to back, and storing their snapshots beside them slows each (CPU and
 * disk, on a small machine). Held uploads go once no tool has run for {@link QUIET_MS} (in
 * the model's next call, typically), once the oldest has waited {@link HOLD_MS} (a long
 * command does not keep its snapshot unstored), or at `flush` (each turn's end).
 */
export class QuietUploads implements CheckpointUploads {
  readonly #inner: CheckpointUploads;
  readonly #quietMs: number;
  readonly #holdMs: number;
  readonly #held: Item[] = [];
  readonly #documents = new Map<string, Item & { kind: 'document' }>();
  #heldSince = 0;
  readonly #running = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(inner: CheckpointUploads, o: { quietMs?: number; holdMs?: number } = {}) {
    this.#inner = inner;
    this.#quietMs = o.quietMs ?? QUIET_MS;
    this.#holdMs = o.holdMs ?? HOLD_MS;
  }

  /** The tool of checkpoint `key` starts (its snapshot was just taken). */
  toolStarted(key: string): void {
    this.#running.add(key);
    this.#schedule();
  }

  /** The tool of checkpoint `key` ended (its end state was just recorded). */
  toolEnded(key: string): void {
    this.#running.delete(key);
    this.#schedule();
  }

  putBytes(bytes: Uint8Array): void {
    this.#hold({ kind: 'bytes', bytes });
  }

  putDocument(name: string, value: unknown): void {
    const held = this.#documents.get(name);
    if (held !== undefined) {
      held.value = value;
      return;
    }
    const item = { kind: 'document' as const, name, value };
    this.#documents.set(name, item);
    this.#hold(item);
  }

  flush(): Promise<void> {
    this.#release();
    return this.#inner.flush();
  }

  close(): Promise<void> {
    this.#release();
    return this.#inner.close();
  }

  #hold(item: Item): void {
    if (this.#held.length === 0) this.#heldSince = performance.now();
    this.#held.push(item);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#held.length === 0) return;
    const left = this.#holdMs - (performance.now() - this.#heldSince);
    const wait = this.#running.size > 0 ? left : Math.min(this.#quietMs, left);
    if (wait <= 0) {
      this.#release();
      return;
    }
    this.#timer = setTimeout(() => this.#release(), wait);
    // Held uploads keep no process alive: a stop flushes them.
    this.#timer.unref();
  }

  #release(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#documents.clear();
    for (const item of this.#held.splice(0)) {
      if (item.kind === 'bytes') this.#inner.putBytes(item.bytes);
      else this.#inner.putDocument(item.name, item.value);
    }
  }
}
