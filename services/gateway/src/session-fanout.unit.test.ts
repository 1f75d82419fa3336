import { FrameReader, type SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import type { EncodedFrame } from './session-channel.ts';
import { type ClientFrames, SessionFanout } from './session-fanout.ts';
import { FakeBackend } from './testing/fake-backend.ts';

const event = (n: number): SessionEvent =>
  sampleSessionEvent('session_title_updated', {
    sessionId: 's1',
    sequenceNumber: n,
    turnId: null,
    id: `e${n}`,
  });

const turn = () => new Promise((r) => setImmediate(r));

/**
 * A client's sink, read with a FrameReader. While `stalled` it still takes each frame, as a
 * socket does, but asks for a drain, which comes when it is resumed.
 */
class TestClient {
  readonly reader = new FrameReader();
  readonly seqs: number[] = [];
  stalled = false;
  #drain: (() => void) | undefined;
  #changed: (() => void) | undefined;
  #taken = 0;
  readonly done: Promise<void>;

  constructor(frames: ClientFrames) {
    this.done = frames.pipeTo({
      write: (frame) => {
        this.#read(frame);
        return !this.stalled;
      },
      drained: () => new Promise((resolve) => (this.#drain = resolve)),
    });
  }

  resume(): void {
    this.stalled = false;
    this.#drain?.();
  }

  /** Waits until the reader is at `until`; the event numbers received since the last call. */
  async until(until: number): Promise<number[]> {
    while (this.reader.after < until) {
      await new Promise<void>((resolve) => (this.#changed = resolve));
    }
    const seqs = this.seqs.slice(this.#taken);
    this.#taken = this.seqs.length;
    return seqs;
  }

  #read(frame: EncodedFrame): void {
    const text = frame.bytes.toString();
    for (const block of text.split('\n\n').filter((b) => b.includes('data: '))) {
      const type = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      const r = this.reader.read({ type, data });
      if (r.kind === 'events') this.seqs.push(...r.events.map((e) => e.sequenceNumber));
      else if (r.kind !== 'partial') throw new Error(`unexpected ${r.kind}`);
    }
    this.#changed?.();
  }
}

describe('SessionFanout', () => {
  it('lets a client that stalled fall out of the log, catch up alone and rejoin, every event once', async () => {
    const backend = new FakeBackend();
    backend.events = [];
    const fanout = new SessionFanout({
      backend,
      requestTimeoutMs: 1000,
      limits: { maxEvents: 2, maxBytes: 1 << 20, maxFrameBytes: 1 << 20 },
      keepFrames: 3,
    });
    const fastFrames = fanout.follow('s1', 0);
    const slowFrames = fanout.follow('s1', 0);
    const fast = new TestClient(fastFrames);
    const slow = new TestClient(slowFrames);
    backend.publish(event(1));
    expect(await fast.until(1)).toEqual([1]);
    expect(await slow.until(1)).toEqual([1]);
    // The slow client's socket is full while 40 events go by, one at a time: it takes the
    // first of them, then waits for a drain.
    slow.stalled = true;
    const fastSeen: number[] = [];
    for (let n = 2; n <= 41; n++) {
      backend.publish(event(n));
      fastSeen.push(...(await fast.until(n)));
      await turn();
    }
    expect(fastSeen).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    expect(await slow.until(2)).toEqual([2]);
    expect(slow.reader.after).toBe(2);
    expect(backend.followers).toHaveLength(1);
    // Now it drains: its gap comes from a follower of its own, then the shared log again.
    slow.resume();
    expect(await slow.until(41)).toEqual(fastSeen.slice(1));
    expect(backend.followers).toHaveLength(2);
    backend.publish(event(42));
    expect(await slow.until(42)).toEqual([42]);
    expect(await fast.until(42)).toEqual([42]);
    expect(backend.followers[1]?.stopped).toBe(true);
    await Promise.all([fastFrames.stop(), slowFrames.stop()]);
    await Promise.all([fast.done, slow.done]);
    expect(backend.followers[0]?.stopped).toBe(true);
    expect(fanout.channels).toBe(0);
  });
});
