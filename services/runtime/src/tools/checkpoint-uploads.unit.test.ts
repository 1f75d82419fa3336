import type { BlobStore } from '@agentwire/bus';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CheckpointUploads, QuietUploads, UploadQueue } from './checkpoint-uploads.ts';

/** A blob store that records each write and holds every one until `release`. */
function recordingStore(fail?: (what: string) => boolean) {
  const writes: string[] = [];
  const gates: (() => void)[] = [];
  let open = false;
  const held = () =>
    open ? Promise.resolve() : new Promise<void>((resolve) => gates.push(resolve));
  const store = {
    async putBytes(bytes: Uint8Array) {
      await held();
      const what = `bytes:${Buffer.from(bytes).toString()}`;
      if (fail?.(what)) throw new Error(`refused ${what}`);
      writes.push(what);
      return 'hex';
    },
    async putDocument(name: string, value: unknown) {
      await held();
      writes.push(`doc:${name}=${JSON.stringify(value)}`);
    },
  } as unknown as BlobStore;
  // From now on every write goes through, the held ones first.
  const release = () => {
    open = true;
    for (const gate of gates.splice(0)) gate();
  };
  return { store, writes, release };
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe('checkpoint upload queue (0244)', () => {
  it('stores in the order queued, and a manifest queued again before it ran goes once, as it is then', async () => {
    const { store, writes, release } = recordingStore();
    const q = new UploadQueue(store);
    q.putBytes(bytes('a'));
    q.putDocument('cp1', { v: 1 });
    q.putBytes(bytes('b'));
    q.putDocument('cp1', { v: 2 });
    const flushed = q.flush();
    release();
    await flushed;
    expect(writes).toEqual(['bytes:a', 'doc:cp1={"v":2}', 'bytes:b']);
  });

  it('a manifest queued again once its upload started is uploaded again', async () => {
    const { store, writes, release } = recordingStore();
    const q = new UploadQueue(store);
    q.putDocument('cp1', { v: 1 });
    await new Promise((r) => setImmediate(r));
    q.putDocument('cp1', { v: 2 });
    const flushed = q.flush();
    release();
    await flushed;
    expect(writes).toEqual(['doc:cp1={"v":1}', 'doc:cp1={"v":2}']);
  });

  it('a failure is reported by the next flush, once, and the uploads after it still go', async () => {
    const { store, writes, release } = recordingStore((what) => what === 'bytes:bad');
    const q = new UploadQueue(store, { retryMs: [1, 1] });
    q.putBytes(bytes('bad'));
    q.putBytes(bytes('good'));
    const flushed = expect(q.flush()).rejects.toThrow('refused bytes:bad');
    release();
    await flushed;
    expect(writes).toEqual(['bytes:good']);
    await expect(q.flush()).resolves.toBeUndefined();
  });

  it('an upload that fails while the broker is away is stored when it is back, in order', async () => {
    let failures = 2;
    const writes: string[] = [];
    const store = {
      async putBytes(b: Uint8Array) {
        if (failures > 0) {
          failures -= 1;
          throw new Error('no responders');
        }
        writes.push(Buffer.from(b).toString());
        return 'hex';
      },
    } as unknown as BlobStore;
    const q = new UploadQueue(store, { retryMs: [1, 1, 1] });
    q.putBytes(bytes('first'));
    q.putBytes(bytes('second'));
    await q.flush();
    expect(writes).toEqual(['first', 'second']);
  });

  it('while the broker stays away, uploads queued after the first ones gave up are tried once', async () => {
    let tries = 0;
    const store = {
      async putBytes() {
        tries += 1;
        throw new Error('no responders');
      },
      async putDocument() {
        tries += 1;
        throw new Error('no responders');
      },
    } as unknown as BlobStore;
    const q = new UploadQueue(store, { retryMs: [1, 1] });
    for (const s of ['a', 'b', 'c']) q.putBytes(bytes(s));
    await expect(q.flush()).rejects.toThrow('no responders');
    // The three went together, three attempts each.
    expect(tries).toBe(9);
    q.putBytes(bytes('d'));
    q.putDocument('cp1', {});
    await expect(q.flush()).rejects.toThrow('no responders');
    // Then one attempt each.
    expect(tries).toBe(11);
  });

  it('stores contents several at a time, and a manifest only once the contents before it are in', async () => {
    const events: string[] = [];
    const waiting: (() => void)[] = [];
    const store = {
      async putBytes(b: Uint8Array) {
        const what = Buffer.from(b).toString();
        events.push(`start ${what}`);
        await new Promise<void>((resolve) => waiting.push(resolve));
        events.push(`done ${what}`);
        return 'hex';
      },
      async putDocument(name: string) {
        events.push(`doc ${name}`);
      },
    } as unknown as BlobStore;
    const q = new UploadQueue(store);
    q.putBytes(bytes('a'));
    q.putBytes(bytes('b'));
    q.putDocument('cp1', {});
    q.putBytes(bytes('c'));
    await new Promise((r) => setImmediate(r));
    // a and b are in flight together; the manifest waits for both.
    expect(events).toEqual(['start a', 'start b']);
    for (const release of waiting.splice(0)) release();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(events.slice(0, 5)).toEqual(['start a', 'start b', 'done a', 'done b', 'doc cp1']);
    const flushed = q.flush();
    await new Promise((r) => setImmediate(r));
    for (const release of waiting.splice(0)) release();
    await flushed;
    expect(events.slice(5)).toEqual(['start c', 'done c']);
  });

  it('an upload queued after the queue ran dry starts a drain of its own', async () => {
    const { store, writes, release } = recordingStore();
    const q = new UploadQueue(store);
    q.putBytes(bytes('1'));
    const first = q.flush();
    release();
    await first;
    q.putBytes(bytes('2'));
    const second = q.flush();
    release();
    await second;
    expect(writes).toEqual(['bytes:1', 'bytes:2']);
  });
});

/** Uploads that record what was handed to them, at once. */
function handedTo() {
  const handed: string[] = [];
  const inner: CheckpointUploads = {
    putBytes: (b) => handed.push(`bytes:${Buffer.from(b).toString()}`),
    putDocument: (name, value) => handed.push(`doc:${name}=${JSON.stringify(value)}`),
    flush: async () => undefined,
    close: async () => undefined,
  };
  return { handed, inner };
}

describe('uploads held while the tools run (0244)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds a tool's uploads until it ended and the tools were quiet for 25 ms, a manifest once", () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { handed, inner } = handedTo();
    const q = new QuietUploads(inner);
    q.toolStarted('cp1');
    q.putBytes(bytes('a'));
    q.putDocument('cp1', { v: 1 });
    vi.advanceTimersByTime(500);
    expect(handed).toEqual([]);
    q.putDocument('cp1', { v: 2 });
    q.toolEnded('cp1');
    vi.advanceTimersByTime(20);
    // A second tool right after the first: still held.
    q.toolStarted('cp2');
    q.putBytes(bytes('b'));
    q.toolEnded('cp2');
    vi.advanceTimersByTime(20);
    expect(handed).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(handed).toEqual(['bytes:a', 'doc:cp1={"v":2}', 'bytes:b']);
  });

  it('lets them go after 1 s however long the tool runs', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { handed, inner } = handedTo();
    const q = new QuietUploads(inner);
    q.toolStarted('long');
    q.putBytes(bytes('before'));
    vi.advanceTimersByTime(999);
    expect(handed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(handed).toEqual(['bytes:before']);
    q.toolEnded('long');
  });

  it('a flush hands everything over at once, in order, before it waits', async () => {
    const { handed, inner } = handedTo();
    const q = new QuietUploads(inner);
    q.toolStarted('cp1');
    q.putDocument('cp1', { v: 1 });
    q.putBytes(bytes('x'));
    await q.flush();
    expect(handed).toEqual(['doc:cp1={"v":1}', 'bytes:x']);
    q.toolEnded('cp1');
  });
});
