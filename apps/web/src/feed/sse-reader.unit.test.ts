import { describe, expect, it } from 'vitest';
import { SseReader } from './sse-reader.ts';

describe('SseReader', () => {
  it('cuts frames at blank lines, whatever the chunks', () => {
    const text =
      'retry: 2000\n\nid: 1\ndata: {"a":1}\n\n: heartbeat\n\nevent: snapshot\nid: 9\ndata: {"b":2}\n\n';
    const whole = new SseReader().push(text);
    expect(whole).toEqual([
      { id: '1', data: '{"a":1}' },
      { id: '9', event: 'snapshot', data: '{"b":2}' },
    ]);
    for (let size = 1; size < 8; size += 1) {
      const reader = new SseReader();
      const frames = [];
      for (let i = 0; i < text.length; i += size)
        frames.push(...reader.push(text.slice(i, i + size)));
      expect(frames).toEqual(whole);
    }
  });

  it('reads CRLF and CR line ends, joins data lines and keeps a partial frame', () => {
    const reader = new SseReader();
    expect(reader.push('data: one\r\ndata: two\r')).toEqual([]);
    expect(reader.push('\n\r\ndata:three\r\r')).toEqual([{ data: 'one\ntwo' }, { data: 'three' }]);
    expect(reader.push('id: 4\ndata: x')).toEqual([]);
    expect(reader.push('\n\n')).toEqual([{ id: '4', data: 'x' }]);
  });
});
