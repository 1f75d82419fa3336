import { FrameReader, type SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import type { EncodedFrame } from './session-channel.ts';
import { SessionFanout } from './session-fanout.ts';
import { FakeBackend } from './testing/fake-backend.ts';

const event = (n: number): SessionEvent =>
  sampleSessionEvent('session_title_updated', {
    sessionId: 's1',
    sequenceNumber: n,
    turnId: null,
    id: `e${n}`,
  });

const turn = () => new Promise((r) => setImmediate(r));

/** Reads `count` frames of `frames` into a reader; returns the event numbers. */
async function take(
  it: AsyncIterator<EncodedFrame>,
  reader: FrameReader,
  until: number,
): Promise<number[]> {
  const seqs: number[] = [];
  while (reader.after < until) {
    const next = await it.next();
    if (next.done === true) break;
    const text = next.value.bytes.toString();
    for (const block of text.split('\n\n').filter((b) => b.includes('data: '))) {
      const type = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      const r = reader.read({ type, data });
      if (r.kind === 'events') seqs.push(...r.events.map((e) => e.sequenceNumber));
      else if (r.kind !== 'partial') throw new Error(`unexpected ${r.kind}`);
    }
  }
  return seqs;
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
    const fast = fanout.follow('s1', 0);
    const slow = fanout.follow('s1', 0);
    const fastIt = fast[Symbol.asyncIterator]();
    const slowIt = slow[Symbol.asyncIterator]();
    const fastReader = new FrameReader();
    const slowReader = new FrameReader();
    backend.publish(event(1));
    expect(await take(fastIt, fastReader, 1)).toEqual([1]);
    expect(await take(slowIt, slowReader, 1)).toEqual([1]);
    // The slow client reads nothing while 40 events go by, one at a time.
    const fastSeen: number[] = [];
    for (let n = 2; n <= 41; n++) {
      backend.publish(event(n));
      fastSeen.push(...(await take(fastIt, fastReader, n)));
      await turn();
    }
    expect(fastSeen).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    expect(backend.followers).toHaveLength(1);
    // Now it reads: its gap comes from a follower of its own, then the shared log again.
    const slowSeen = await take(slowIt, slowReader, 41);
    expect(slowSeen).toEqual(fastSeen);
    expect(backend.followers).toHaveLength(2);
    backend.publish(event(42));
    expect(await take(slowIt, slowReader, 42)).toEqual([42]);
    expect(await take(fastIt, fastReader, 42)).toEqual([42]);
    expect(backend.followers[1]?.stopped).toBe(true);
    await Promise.all([fast.stop(), slow.stop()]);
    await fastIt.return?.();
    await slowIt.return?.();
    expect(backend.followers[0]?.stopped).toBe(true);
    expect(fanout.channels).toBe(0);
  });
});
