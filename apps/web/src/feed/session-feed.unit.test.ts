import { encodeEventsFrame, encodeSnapshotFrame } from '@agentwire/contracts';
import { describe, expect, it, vi } from 'vitest';
import { event } from '../state/test-events.ts';
import { type FeedStatus, SessionFeed } from './session-feed.ts';

const ev = (seq: number) =>
  JSON.stringify(event(seq, 'system_message', { message: `notice ${seq}` }, null));

/**
 * A gateway stand-in: answers each request with the next script: a status, SSE text held
 * open (a live stream), or `{ end }`, SSE text and then the end of the stream (a lost one).
 */
type Script = string | number | { readonly end: string };

function fakeGateway(scripts: readonly Script[]) {
  const urls: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    urls.push(String(input));
    const script = scripts[urls.length - 1] ?? '';
    if (typeof script === 'number') return new Response('{}', { status: script });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const text = typeof script === 'string' ? script : script.end;
        controller.enqueue(new TextEncoder().encode(text));
        if (typeof script !== 'string') controller.close();
        else init?.signal?.addEventListener('abort', () => controller.close());
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return { urls, fetch };
}

function follow(scripts: readonly Script[], afterSequence = 0) {
  const gateway = fakeGateway(scripts);
  const seqs: number[] = [];
  const snapshots: number[] = [];
  const statuses: FeedStatus[] = [];
  const feed = new SessionFeed(
    { baseUrl: 'http://gw', sessionId: 's1', afterSequence, fetch: gateway.fetch, backoffMs: 1 },
    {
      onEvents: (events) => seqs.push(...events.map((e) => e.sequenceNumber)),
      onSnapshot: (_projection, asOfSeq) => snapshots.push(asOfSeq),
      onStatus: (s) => statuses.push(s),
    },
  );
  feed.start();
  return { feed, urls: gateway.urls, seqs, snapshots, statuses };
}

describe('SessionFeed', () => {
  it('on a gap, resyncs once from the last number it has, and gets each event once', async () => {
    const f = follow([
      encodeEventsFrame(1, 2, [ev(1), ev(2)]) + encodeEventsFrame(5, 6, [ev(5), ev(6)]),
      encodeEventsFrame(1, 2, [ev(1), ev(2)]) +
        encodeEventsFrame(3, 6, [ev(3), ev(4), ev(5), ev(6)]),
    ]);
    await vi.waitFor(() => expect(f.seqs).toEqual([1, 2, 3, 4, 5, 6]));
    expect(f.urls).toEqual([
      'http://gw/sessions/s1/events?after=0',
      'http://gw/sessions/s1/events?after=2',
    ]);
    expect(f.feed.lastSequence).toBe(6);
    expect(f.statuses.at(-1)).toBe('live');
    await f.feed.stop();
  });

  it('on a second gap in a row, asks for a snapshot and follows on from its number', async () => {
    const projection = { id: 's1', createdAt: 1, updatedAt: 2, lastSequenceNumber: 9 };
    const f = follow(
      [
        encodeEventsFrame(5, 5, [ev(5)]),
        encodeEventsFrame(7, 7, [ev(7)]),
        encodeSnapshotFrame(projection, 9) + encodeEventsFrame(10, 10, [ev(10)]),
      ],
      3,
    );
    await vi.waitFor(() => expect(f.seqs).toEqual([10]));
    expect(f.snapshots).toEqual([9]);
    expect(f.urls.map((u) => u.split('?')[1])).toEqual(['after=3', 'after=3', 'snapshot=true']);
    await f.feed.stop();
  });

  it('reassembles fragments, and after a lost stream and a 503 comes back from its number', async () => {
    const big = JSON.stringify(event(2, 'system_message', { message: 'x'.repeat(5000) }, null));
    const fragmented = encodeEventsFrame(1, 2, [ev(1), big], 1024);
    expect(fragmented.match(/^event: fragment$/gm)?.length).toBeGreaterThan(4);
    const f = follow([{ end: fragmented }, 503, encodeEventsFrame(3, 3, [ev(3)])]);
    await vi.waitFor(() => expect(f.seqs).toEqual([1, 2, 3]));
    expect(f.urls.map((u) => u.split('?')[1])).toEqual(['after=0', 'after=2', 'after=2']);
    expect(f.statuses).toEqual(['connecting', 'live', 'reconnecting', 'live']);
    await f.feed.stop();
  });

  it('stops for good on 404: the session is gone', async () => {
    const f = follow([404]);
    await vi.waitFor(() => expect(f.statuses.at(-1)).toBe('gone'));
    expect(f.urls).toHaveLength(1);
  });
});
