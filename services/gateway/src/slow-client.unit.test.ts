import net from 'node:net';
import { FrameReader, type SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import { FakeBackend } from './testing/fake-backend.ts';
import { openSse } from './testing/sse-client.ts';

const event = (n: number): SessionEvent => {
  const e = sampleSessionEvent('session_title_updated', {
    sessionId: 's1',
    sequenceNumber: n,
    turnId: null,
    id: `e${n}`,
  });
  return { ...e, payload: { ...e.payload, title: `${n} ${'x'.repeat(64 * 1024)}` } };
};

/** Event numbers of the frames in raw SSE text, read with a FrameReader. */
function seqsOf(text: string): number[] {
  const reader = new FrameReader();
  const seqs: number[] = [];
  for (const block of text.split('\n\n')) {
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (data === undefined) continue;
    const type = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
    const r = reader.read({ type, data });
    if (r.kind === 'events') seqs.push(...r.events.map((e) => e.sequenceNumber));
    else if (r.kind !== 'partial') throw new Error(`unexpected ${r.kind}`);
  }
  return seqs;
}

/** The body of a raw HTTP/1.1 response with chunked encoding, as far as it arrived. */
function bodyOf(raw: Buffer): string {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  while (at < raw.length) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (Number.isNaN(size) || eol + 2 + size > raw.length) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
});

describe('a slow SSE client over real sockets (decision 0200)', () => {
  it('does not hold up a fast one, and later gets every event once', {
    timeout: 30_000,
  }, async () => {
    const backend = new FakeBackend();
    backend.events = [event(1)];
    const app = buildApp({ backend, heartbeatMs: 60_000 });
    close = () => app.close();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);

    // The slow client sends its request, then stops reading.
    const slow = net.connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    slow.on('data', (chunk: Buffer) => received.push(chunk));
    slow.write('GET /sessions/s1/events?after=0 HTTP/1.1\r\nHost: x\r\n\r\n');
    const fast = await openSse(`${address}/sessions/s1/events?after=0`);
    for (let i = 0; i < 100 && fast.events.length < 1; i++)
      await new Promise((r) => setTimeout(r, 10));
    slow.pause();

    // 16 MiB go by: more than the sockets buffer and more than the channel keeps (8 MiB).
    for (let n = 2; n <= 257; n++) backend.publish(event(n));
    for (let i = 0; i < 1000 && fast.events.length < 257; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(fast.events.map((e) => e.sequenceNumber)).toEqual(
      Array.from({ length: 257 }, (_, i) => i + 1),
    );
    const whileStalled = Buffer.concat(received).length;
    expect(whileStalled).toBeLessThan(16 * 1024 * 1024);

    // Now it reads: it catches up (a follower of its own once it fell out of the log).
    slow.resume();
    const done = () => seqsOf(bodyOf(Buffer.concat(received))).at(-1) === 257;
    for (let i = 0; i < 2000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(seqsOf(bodyOf(Buffer.concat(received)))).toEqual(
      Array.from({ length: 257 }, (_, i) => i + 1),
    );
    expect(backend.followers.length).toBeGreaterThanOrEqual(2);
    slow.destroy();
    fast.abort();
  });
});
