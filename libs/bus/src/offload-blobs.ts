import { type BlobStore, isBlobRef } from './blob-store.ts';
import { BusError } from './bus-error.ts';

/** Header of a message with offloaded fields: how many (docs/decisions/0162). */
export const BLOBS_HEADER = 'Aw-Blobs';

/** The message size bound and where larger contents go (docs/decisions/0162). */
export interface BlobOffload {
  readonly store: BlobStore;
  /** The largest JSON body, in UTF-8 bytes, a message may have. */
  readonly maxBytes: number;
}

/** Strings shorter than this stay inline: a reference is about 90 bytes. */
const MIN_OFFLOAD_BYTES = 1024;

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * The JSON body to publish for `json` (a serialised message) under the bound: as it
 * is when it fits, otherwise with its largest string fields, largest first, stored in the
 * blob store and replaced by their references until it fits. Returns how many fields were
 * offloaded. Throws {@link BusError} `publish_refused` when even that cannot bring it under
 * the bound (too many small fields): such a message is never sent.
 */
export async function offloadBlobs(
  json: string,
  offload: BlobOffload,
): Promise<{ readonly json: string; readonly offloaded: number }> {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most bodies need no exact count.
  if (json.length * 3 <= offload.maxBytes) return { json, offloaded: 0 };
  let size = byteLength(json);
  if (size <= offload.maxBytes) return { json, offloaded: 0 };
  const copy = JSON.parse(json) as unknown;
  const fields = stringFields(copy).sort((a, b) => b.bytes - a.bytes);
  let offloaded = 0;
  for (const field of fields) {
    if (size <= offload.maxBytes || field.bytes < MIN_OFFLOAD_BYTES) break;
    const ref = await offload.store.put(field.get());
    size -= byteLength(JSON.stringify(field.get())) - byteLength(JSON.stringify(ref));
    field.set(ref);
    offloaded += 1;
  }
  const out = JSON.stringify(copy);
  const bytes = byteLength(out);
  if (bytes > offload.maxBytes) {
    throw new BusError(
      `a body of ${byteLength(json)} bytes stays at ${bytes} bytes after offloading ${offloaded} field(s), over the bound of ${offload.maxBytes} bytes`,
      { code: 'publish_refused' },
    );
  }
  return { json: out, offloaded };
}

interface StringField {
  readonly bytes: number;
  get(): string;
  set(value: string): void;
}

/** Every string leaf of a parsed JSON value, with a setter (object values and array items). */
function stringFields(root: unknown): StringField[] {
  const out: StringField[] = [];
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number) => {
    const value = (holder as Record<string | number, unknown>)[key];
    if (typeof value === 'string') {
      // Fewer than MIN / 3 UTF-16 units cannot reach MIN bytes: skip the count.
      if (value.length * 3 < MIN_OFFLOAD_BYTES) return;
      const bytes = byteLength(value);
      if (bytes < MIN_OFFLOAD_BYTES) return;
      out.push({
        bytes,
        get: () => (holder as Record<string | number, string>)[key] as string,
        set: (v) => {
          (holder as Record<string | number, unknown>)[key] = v;
        },
      });
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) visit(value, i);
    } else if (value !== null && typeof value === 'object') {
      for (const k of Object.keys(value)) visit(value as Record<string, unknown>, k);
    }
  };
  visit({ root }, 'root');
  return out;
}

/**
 * `value` with every blob reference in its strings replaced by the content it names
 * (docs/decisions/0162); `value` itself when it holds none. Reads each content once.
 */
export async function resolveBlobs<T>(value: T, store: BlobStore): Promise<T> {
  const refs = new Set<string>();
  collect(value, refs);
  if (refs.size === 0) return value;
  const contents = new Map<string, string>();
  await Promise.all([...refs].map(async (ref) => contents.set(ref, await store.get(ref))));
  return replace(value, contents) as T;
}

function collect(value: unknown, refs: Set<string>): void {
  if (typeof value === 'string') {
    if (isBlobRef(value)) refs.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) collect(v, refs);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collect(v, refs);
  }
}

function replace(value: unknown, contents: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return contents.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replace(v, contents));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replace(v, contents)] as const),
    );
  }
  return value;
}
