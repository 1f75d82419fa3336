import {
  FrameReader,
  type FrameReading,
  type SessionEvent,
  type SseMessage,
} from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import { SseHub } from './sse-hub.ts';
import { FakeBackend } from './testing/fake-backend.ts';

let backend: FakeBackend;
let hub: SseHub;
let app: FastifyInstance;

beforeEach(() => {
  backend = new FakeBackend();
  hub = new SseHub();
  app = buildApp({ backend, hub, heartbeatMs: 60_000, maxFrameBytes: 4096 });
});
afterEach(async () => {
  await app.close();
});

/** Waits for `condition`, then lets the frames it implies reach the response. */
async function until(condition: () => boolean): Promise<void> {
  for (const end = Date.now() + 5000; !condition() && Date.now() < end; ) await turn();
  if (!condition()) throw new Error('condition never held');
  for (let i = 0; i < 20; i++) await turn();
}
const turn = () => new Promise((r) => setImmediate(r));

const event = (n: number, title = `t${n}`): SessionEvent => {
  const e = sampleSessionEvent('session_title_updated', {
    sessionId: 's1',
    sequenceNumber: n,
    turnId: null,
    id: `e${n}`,
  });
  return { ...e, payload: { ...e.payload, title } };
};
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => event(from + i));

/** The SSE blocks of a payload that carry fields, comments and `retry:` left out. */
function blocks(payload: string): { id?: string; type: string; data: string }[] {
  return payload
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.some((l) => l.startsWith('data: ')))
    .map((lines) => {
      const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
      const type = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '';
      return { ...(id === undefined ? {} : { id }), type, data };
    });
}

const read = (reader: FrameReader, payload: string): FrameReading[] =>
  blocks(payload).map((m: SseMessage) => reader.read(m));

const seqsOf = (readings: FrameReading[]) =>
  readings.flatMap((r) => (r.kind === 'events' ? r.events.map((e) => e.sequenceNumber) : []));

/** A follow request kept open until the app closes; resolves with the response. */
function follow(url: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers });
}

describe('gateway SSE follow (R15.1, R15.2)', () => {
  it('sends the events after the base in one ranged frame and ends cleanly on close', async () => {
    backend.events = range(1, 4);
    const response = follow('/sessions/s1/events?after=2');
    await until(() => backend.followers[0]?.lastSequence === 4);
    expect(hub.size).toBe(1);
    await app.close();
    const res = await response;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = blocks(res.payload);
    expect(frames.map((f) => [f.type, f.id])).toEqual([['message', '4']]);
    const data = JSON.parse(frames[0]?.data ?? '') as { fromSeq: number; toSeq: number };
    expect(data).toMatchObject({ fromSeq: 3, toSeq: 4 });
    expect(seqsOf(read(new FrameReader({ after: 2 }), res.payload))).toEqual([3, 4]);
    expect(res.payload).toContain(': shutting down');
    expect(backend.followers[0]?.stopped).toBe(true);
    expect(hub.size).toBe(0);
  });

  it('resumes from Last-Event-ID over the query', async () => {
    backend.events = range(1, 4);
    const response = follow('/sessions/s1/events?after=1', { 'last-event-id': '3' });
    await until(() => backend.followers[0]?.lastSequence === 4);
    await app.close();
    const res = await response;
    expect(backend.calls.find((c) => c.method === 'follow')?.args).toEqual(['s1', 3]);
    expect(res.payload.match(/^id: \d+$/gm)).toEqual(['id: 4']);
  });

  it('sends live events as they come, each frame starting after the one before', async () => {
    backend.events = range(1, 2);
    const response = follow('/sessions/s1/events?after=0');
    await until(() => backend.followers[0]?.lastSequence === 2);
    backend.publish(event(3));
    await until(() => backend.followers[0]?.lastSequence === 3);
    backend.publish(event(5));
    await until(() => backend.followers[0]?.lastSequence === 5);
    await app.close();
    const payload = (await response).payload;
    const frames = blocks(payload).map(
      (f) => JSON.parse(f.data) as { fromSeq: number; toSeq: number },
    );
    // How the events split into frames depends on timing; the ranges never leave a hole.
    expect(frames[0]?.fromSeq).toBe(1);
    for (const [i, f] of frames.entries()) {
      if (i > 0) expect(f.fromSeq).toBe((frames[i - 1]?.toSeq ?? 0) + 1);
    }
    expect(frames.at(-1)?.toSeq).toBe(5);
    expect(seqsOf(read(new FrameReader(), payload))).toEqual([1, 2, 3, 5]);
  });

  it('coalesces what is ready at once, bounded per frame', async () => {
    await app.close();
    app = buildApp({ backend, hub, heartbeatMs: 60_000 });
    backend.events = range(1, 700);
    const response = follow('/sessions/s1/events?after=0');
    await until(() => backend.followers[0]?.lastSequence === 700);
    await app.close();
    const res = await response;
    const frames = blocks(res.payload).map((f) => JSON.parse(f.data));
    expect(frames.length).toBeLessThan(700 / 4);
    for (const f of frames) expect(f.events.length).toBeLessThanOrEqual(256);
    expect(seqsOf(read(new FrameReader(), res.payload))).toEqual(
      range(1, 700).map((e) => e.sequenceNumber),
    );
  });

  it('fills a frame up to the bound without spilling into fragments', async () => {
    backend.events = range(1, 100);
    const response = follow('/sessions/s1/events?after=0');
    await until(() => backend.followers[0]?.lastSequence === 100);
    await app.close();
    const frames = blocks((await response).payload);
    expect(frames.every((f) => f.type === 'message')).toBe(true);
    expect(frames.length).toBeLessThan(100 / 4);
    for (const f of frames) expect(Buffer.byteLength(f.data)).toBeLessThanOrEqual(4096);
  });

  it('starts with a snapshot when asked (?snapshot=true), then follows after it', async () => {
    backend.events = range(1, 9);
    const response = follow('/sessions/s1/events?after=8&snapshot=true');
    await until(() => backend.followers[0]?.lastSequence === 9);
    await app.close();
    const reader = new FrameReader({ after: 8 });
    const readings = read(reader, (await response).payload);
    expect(readings[0]).toEqual({ kind: 'snapshot', asOfSeq: 7, projection: { title: 'x' } });
    expect(seqsOf(readings)).toEqual([8, 9]);
    // The snapshot comes alone; the client then joins the session's shared follower.
    expect(backend.calls.filter((c) => c.method !== 'knows').map((c) => c.args)).toEqual([
      ['s1'],
      ['s1', 7],
      ['s1', 7],
    ]);
    expect(backend.followers[0]?.stopped).toBe(true);
  });
});

describe('gateway SSE fanout: one follower per session (0200)', () => {
  it('shares one follower among the clients of a session and encodes each frame once', async () => {
    backend.events = range(1, 3);
    const a = follow('/sessions/s1/events?after=0');
    await until(() => backend.followers[0]?.lastSequence === 3);
    const b = follow('/sessions/s1/events?after=0');
    const c = follow('/sessions/s1/events?after=2');
    await until(() => hub.size === 3);
    backend.publish(event(4));
    backend.publish(event(5));
    await until(() => backend.followers[0]?.lastSequence === 5);
    await app.close();
    expect(backend.calls.filter((x) => x.method === 'follow')).toHaveLength(1);
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect(seqsOf(read(new FrameReader(), ra?.payload ?? ''))).toEqual([1, 2, 3, 4, 5]);
    expect(seqsOf(read(new FrameReader(), rb?.payload ?? ''))).toEqual([1, 2, 3, 4, 5]);
    expect(seqsOf(read(new FrameReader({ after: 2 }), rc?.payload ?? ''))).toEqual([3, 4, 5]);
    // The live frame is the same bytes for every client.
    const live = (p: string) => p.slice(p.indexOf('"fromSeq":4'));
    expect(live(ra?.payload ?? '')).toBe(live(rb?.payload ?? ''));
  });

  it('replays a late client its own gap on a follower of its own, then joins the shared tail', async () => {
    backend.events = range(1, 5);
    // The channel opens at 3, so a client from 0 is behind its log.
    const a = follow('/sessions/s1/events?after=3');
    await until(() => backend.followers[0]?.lastSequence === 5);
    const b = follow('/sessions/s1/events?after=0');
    await until(() => backend.followers.length === 2 && backend.followers[1]?.lastSequence === 5);
    backend.publish(event(6));
    await until(() => backend.followers[0]?.lastSequence === 6);
    await app.close();
    const [ra, rb] = await Promise.all([a, b]);
    expect(seqsOf(read(new FrameReader({ after: 3 }), ra.payload))).toEqual([4, 5, 6]);
    expect(seqsOf(read(new FrameReader(), rb.payload))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(backend.followers[1]?.stopped).toBe(true);
  });

  it('sends a frame over the bound as fragments that the reader reassembles', async () => {
    backend.events = [event(1), event(2, `big ${'é'.repeat(10_000)}`), event(3)];
    const response = follow('/sessions/s1/events?after=0');
    await until(() => backend.followers[0]?.lastSequence === 3);
    await app.close();
    const res = await response;
    const frames = blocks(res.payload);
    expect(frames.filter((f) => f.type === 'fragment').length).toBeGreaterThan(4);
    for (const f of frames) expect(Buffer.byteLength(f.data)).toBeLessThanOrEqual(4096);
    const readings = read(new FrameReader(), res.payload);
    expect(readings.filter((r) => r.kind !== 'partial' && r.kind !== 'events')).toEqual([]);
    const received = readings.flatMap((r) => (r.kind === 'events' ? r.events : []));
    expect(received).toEqual(backend.events);
  });
});

describe('gateway SSE follow from an expired base (R15.1)', () => {
  it('sends the projection as a snapshot frame, then the events after its asOfSeq', async () => {
    backend.events = range(1, 9);
    backend.oldestRetained = 5;
    const response = follow('/sessions/s1/events?after=2');
    await until(() => backend.followers[1]?.lastSequence === 9);
    await app.close();
    const res = await response;
    expect(backend.calls.filter((c) => c.method !== 'knows').map((c) => c.args)).toEqual([
      ['s1', 2],
      ['s1'],
      ['s1', 7],
    ]);
    const frames = blocks(res.payload);
    expect(frames[0]).toEqual({
      id: '7',
      type: 'snapshot',
      data: JSON.stringify({ projection: { title: 'x' }, asOfSeq: 7 }),
    });
    expect(frames.slice(1).map((f) => [f.id, JSON.parse(f.data).fromSeq])).toEqual([['9', 8]]);
  });

  it('follows a base still inside the window without a snapshot', async () => {
    backend.events = range(1, 9);
    backend.oldestRetained = 5;
    const response = follow('/sessions/s1/events?after=4');
    await until(() => backend.followers[0]?.lastSequence === 9);
    await app.close();
    const res = await response;
    expect(res.payload).not.toContain('event: snapshot');
    expect(seqsOf(read(new FrameReader({ after: 4 }), res.payload))).toEqual([5, 6, 7, 8, 9]);
    expect(backend.calls.map((c) => c.method)).not.toContain('projection');
  });

  it('ends with an error frame when the snapshot cannot be read', async () => {
    backend.events = range(1, 9);
    backend.oldestRetained = 5;
    backend.failNext = { ok: false, error: { code: 'timeout', message: 'no answer' } };
    const res = await follow('/sessions/s1/events?after=2');
    const frames = blocks(res.payload);
    expect(frames.map((f) => f.type)).toEqual(['error']);
    const error = JSON.parse(frames[0]?.data ?? '') as { code: string; message: string };
    expect(error.code).toBe('snapshot_unavailable');
    expect(error.message).toMatch(/timeout: no answer/);
    expect(backend.followers).toHaveLength(1);
  });

  it('gives up with an error frame on a second gap right after the snapshot', async () => {
    backend.events = range(1, 9);
    backend.oldestRetained = 5;
    backend.projectionOf = { ok: true, projection: { title: 'old' }, asOfSeq: 3 };
    const res = await follow('/sessions/s1/events?after=1');
    const frames = blocks(res.payload);
    expect(frames.map((f) => f.type)).toEqual(['snapshot', 'error']);
    expect(frames[0]?.id).toBe('3');
    expect(frames[1]?.data).toMatch(/"code":"base_expired"/);
    expect(backend.calls.filter((c) => c.method === 'follow').map((c) => c.args)).toEqual([
      ['s1', 1],
      ['s1', 3],
    ]);
    await until(() => hub.size === 0);
  });
});
