import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../session-event.ts';
import { sampleSessionEvent } from '../testing/samples.ts';
import { FrameReader, type SseMessage } from './frame-reader.ts';
import { encodeEventsFrame, encodeSnapshotFrame } from './sse-frame.ts';

function event(seq: number, text = 'hi'): SessionEvent {
  const e = sampleSessionEvent('session_title_updated', { sequenceNumber: seq, id: `e-${seq}` });
  return { ...e, payload: { ...e.payload, title: text } };
}

/** Parses SSE text the way `EventSource` does (one data line per frame here). */
function messages(sse: string): SseMessage[] {
  return sse
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const lines = block.split('\n');
      const type = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '';
      return { type, data };
    });
}

function frame(fromSeq: number, toSeq: number, seqs: number[], max?: number): SseMessage[] {
  const json = seqs.map((s) => JSON.stringify(event(s)));
  return messages(encodeEventsFrame(fromSeq, toSeq, json, max));
}

function readAll(reader: FrameReader, list: SseMessage[]) {
  return list.map((m) => reader.read(m));
}

describe('FrameReader: ranges (R15.2)', () => {
  it('applies contiguous frames and moves after to each toSeq', () => {
    const reader = new FrameReader({ after: 2 });
    const [a] = readAll(reader, frame(3, 5, [3, 5]));
    expect(a).toMatchObject({ kind: 'events', fromSeq: 3, toSeq: 5 });
    expect(a?.kind === 'events' && a.events.map((e) => e.sequenceNumber)).toEqual([3, 5]);
    expect(reader.after).toBe(5);
  });

  it('drops a frame at or below what it has', () => {
    const reader = new FrameReader({ after: 5 });
    expect(readAll(reader, frame(4, 5, [4, 5]))).toEqual([{ kind: 'dropped', toSeq: 5 }]);
    expect(reader.after).toBe(5);
  });

  it('keeps only the new events of an overlapping frame', () => {
    const reader = new FrameReader({ after: 4 });
    const [r] = readAll(reader, frame(3, 6, [3, 4, 5, 6]));
    expect(r?.kind === 'events' && r.events.map((e) => e.sequenceNumber)).toEqual([5, 6]);
  });

  it('asks for one resync on a gap, and a snapshot on the second gap in a row', () => {
    const reader = new FrameReader({ after: 2 });
    const [first] = readAll(reader, frame(5, 6, [5, 6]));
    expect(first).toMatchObject({ kind: 'resync', after: 2, problem: { code: 'gap' } });
    const [second] = readAll(reader, frame(7, 7, [7]));
    expect(second).toMatchObject({ kind: 'snapshot_needed', problem: { code: 'gap' } });
    expect(reader.after).toBe(2);
  });

  it('forgets a gap once a frame applied after the resync', () => {
    const reader = new FrameReader({ after: 2 });
    readAll(reader, frame(5, 6, [5, 6]));
    expect(readAll(reader, frame(3, 6, [3, 6]))[0]?.kind).toBe('events');
    expect(readAll(reader, frame(9, 9, [9]))[0]?.kind).toBe('resync');
  });

  it('takes a snapshot as the new base and resets the problem count', () => {
    const reader = new FrameReader({ after: 2 });
    readAll(reader, frame(5, 6, [5, 6]));
    const [snap] = readAll(reader, messages(encodeSnapshotFrame({ title: 'x' }, 40)));
    expect(snap).toEqual({ kind: 'snapshot', asOfSeq: 40, projection: { title: 'x' } });
    expect(reader.after).toBe(40);
    expect(readAll(reader, frame(42, 42, [42]))[0]?.kind).toBe('resync');
  });

  it('refuses a frame with an event outside its range', () => {
    const reader = new FrameReader({ after: 0 });
    const [r] = readAll(reader, frame(1, 2, [1, 3]));
    expect(r).toMatchObject({ kind: 'resync', problem: { code: 'malformed_frame' } });
    expect(reader.after).toBe(0);
  });

  it('reports the gateway error frame and ignores unknown frame types', () => {
    const reader = new FrameReader();
    expect(reader.read({ type: 'error', data: '{"code":"base_expired","message":"m"}' })).toEqual({
      kind: 'server_error',
      code: 'base_expired',
      message: 'm',
    });
    expect(reader.read({ type: 'future', data: '{}' })).toEqual({
      kind: 'ignored',
      type: 'future',
    });
    // EventSource's own connection error is an Event without data: not the gateway's frame.
    expect(reader.read({ type: 'error' })).toEqual({ kind: 'ignored', type: 'error' });
  });
});

describe('FrameReader: fragments (R15.3)', () => {
  const big = (seq: number) => event(seq, `ü€😀"\\\n${'x'.repeat(20_000)}`);
  const fragments = (max = 4096) =>
    messages(encodeEventsFrame(1, 2, [JSON.stringify(event(1)), JSON.stringify(big(2))], max));

  it('splits a frame over the bound into fragments no larger than it, and reassembles them', () => {
    const list = fragments();
    expect(list.length).toBeGreaterThan(5);
    for (const m of list) {
      expect(m.type).toBe('fragment');
      expect(new TextEncoder().encode(m.data).length).toBeLessThanOrEqual(4096);
    }
    const reader = new FrameReader();
    const results = readAll(reader, list);
    expect(results.slice(0, -1).every((r) => r.kind === 'partial')).toBe(true);
    const last = results.at(-1);
    expect(last?.kind === 'events' && last.events[1]).toEqual(big(2));
    expect(reader.after).toBe(2);
  });

  it('refuses a set over its cap', () => {
    const reader = new FrameReader({ maxReassembledBytes: 10_000 });
    const [first] = readAll(reader, fragments().slice(0, 1));
    expect(first).toMatchObject({ kind: 'resync', problem: { code: 'fragment_too_large' } });
  });

  it('refuses a set whose chunks add up to more than it declared', () => {
    const list = fragments();
    const lying = list.map((m) => {
      const d = JSON.parse(m.data ?? '');
      return { type: m.type, data: JSON.stringify({ ...d, bytes: 100 }) };
    });
    const results = readAll(new FrameReader(), lying);
    expect(
      results.some((r) => r.kind === 'resync' && r.problem.code === 'fragment_too_large'),
    ).toBe(true);
  });

  it('refuses a corrupt set (a chunk changed) by its checksum', () => {
    const list = fragments();
    const middle = list[2] as SseMessage;
    const d = JSON.parse(middle.data ?? '');
    const chunk = d.chunk.replace('x', 'y');
    list[2] = { type: 'fragment', data: JSON.stringify({ ...d, chunk }) };
    const reader = new FrameReader();
    const last = readAll(reader, list).at(-1);
    expect(last).toMatchObject({ kind: 'resync', after: 0, problem: { code: 'fragment_corrupt' } });
    expect(reader.after).toBe(0);
  });

  it('refuses fragments out of order, and one that does not start a set', () => {
    const list = fragments();
    const reader = new FrameReader();
    reader.read(list[0] as SseMessage);
    expect(reader.read(list[2] as SseMessage)).toMatchObject({
      kind: 'resync',
      problem: { code: 'fragment_out_of_order' },
    });
    expect(reader.read(list[3] as SseMessage)).toMatchObject({
      kind: 'snapshot_needed',
      problem: { code: 'fragment_out_of_order' },
    });
  });

  it('starts over when a set begins again (a reconnect mid-set)', () => {
    const list = fragments();
    const reader = new FrameReader();
    readAll(reader, list.slice(0, 3));
    expect(readAll(reader, list).at(-1)?.kind).toBe('events');
  });

  it('fragments a large snapshot too', () => {
    const projection = { text: 'z'.repeat(50_000) };
    const list = messages(encodeSnapshotFrame(projection, 7, 8192));
    expect(list.length).toBeGreaterThan(5);
    const reader = new FrameReader();
    expect(readAll(reader, list).at(-1)).toEqual({ kind: 'snapshot', asOfSeq: 7, projection });
  });

  it('puts the id only on the last fragment', () => {
    const sse = encodeEventsFrame(1, 2, [JSON.stringify(big(2))], 4096);
    const blocks = sse.split('\n\n').filter(Boolean);
    expect(blocks.filter((b) => b.includes('\nid: ')).length).toBe(1);
    expect(blocks.at(-1)).toContain('id: 2\n');
  });
});
