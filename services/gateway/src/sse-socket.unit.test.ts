import type { SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import { FakeBackend } from './testing/fake-backend.ts';
import { openSse } from './testing/sse-client.ts';

const event = (n: number): SessionEvent =>
  sampleSessionEvent('session_title_updated', {
    sessionId: 's1',
    sequenceNumber: n,
    turnId: null,
    id: `e${n}`,
  });

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

describe('SSE frames written to the socket as chunks of their own', () => {
  it('interleave with heartbeats, parse as HTTP/1.1 chunks, and the stream ends cleanly', {
    timeout: 20_000,
  }, async () => {
    const backend = new FakeBackend();
    backend.events = [event(1)];
    const app = buildApp({ backend, heartbeatMs: 20 });
    close = () => app.close();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    // Two clients share each frame's bytes; a strict HTTP parser (undici) reads both.
    const a = await openSse(`${address}/sessions/s1/events?after=0`);
    const b = await openSse(`${address}/sessions/s1/events?after=0`);
    await until(() => a.events.length === 1 && b.events.length === 1, 'the first event');
    // Frames written to the socket, then a heartbeat written by the response, four times.
    const heartbeats = () => a.frames.filter((f) => f.comments.includes('heartbeat')).length;
    for (let n = 2; n <= 40; n++) {
      backend.publish(event(n));
      if (n % 10 === 0) {
        const seen = heartbeats();
        await until(() => heartbeats() > seen, 'a heartbeat after the frames');
      }
    }
    await until(() => a.events.length === 40 && b.events.length === 40, 'every event');

    // The gateway's drain ends both streams with the response's own last chunk.
    await app.close();
    close = undefined;
    await Promise.all([a.ended, b.ended]);
    const all = Array.from({ length: 40 }, (_, i) => i + 1);
    expect(a.events.map((e) => e.sequenceNumber)).toEqual(all);
    expect(b.events.map((e) => e.sequenceNumber)).toEqual(all);
    expect(heartbeats()).toBeGreaterThanOrEqual(4);
    expect(a.frames.at(-1)?.comments).toContain('shutting down');
  });
});
