import { describe, expect, it } from 'vitest';
import {
  formatTranscript,
  parseTranscript,
  TRANSCRIPT_FORMAT,
  type TranscriptEntry,
} from './transcript-file.ts';

const header = {
  format: TRANSCRIPT_FORMAT,
  version: 1,
  sessionId: 's1',
  title: 'T',
  exportedAt: 1,
} as const;
const user = (id: string, treeParentId: string | null, sessionId = 's1'): TranscriptEntry => ({
  message: {
    id,
    sessionId,
    role: 'user',
    time: { created: 1 },
    agent: 'build',
    treeParentId,
  },
  parts: [{ id: `${id}.t`, sessionId, messageId: id, type: 'text', text: `text of ${id}` }],
});
const limits = { maxBytes: 100_000, maxMessages: 100 };

describe('transcript files (docs/decisions/0241)', () => {
  it('round-trips a branched transcript', () => {
    const entries = [user('a', null), user('b', 'a'), user('c', 'a')];
    const text = formatTranscript(header, entries);
    expect(parseTranscript(text, limits)).toEqual({ ok: true, header, entries });
    expect(formatTranscript(header, entries)).toBe(text);
  });

  it.each([
    ['not JSON', (t: string) => `${t}{oops\n`, 'invalid_transcript', 4, 'not JSON'],
    [
      'a bad header',
      (t: string) => t.replace(TRANSCRIPT_FORMAT, 'other'),
      'invalid_transcript',
      1,
      'header',
    ],
    [
      'no messages',
      (t: string) => `${t.split('\n')[0]}\n`,
      'invalid_transcript',
      0,
      'at least one',
    ],
    [
      'a cycle',
      () => formatTranscript(header, [user('a', 'b'), user('b', 'a')]),
      'invalid_transcript',
      2,
      'cycle',
    ],
    [
      'a parent that is not there',
      () => formatTranscript(header, [user('a', 'zz')]),
      'invalid_transcript',
      2,
      'names no message',
    ],
    [
      'a duplicate id',
      () => formatTranscript(header, [user('a', null), user('a', null)]),
      'invalid_transcript',
      3,
      'twice',
    ],
    [
      'another session',
      () => formatTranscript(header, [user('a', null, 's2')]),
      'invalid_transcript',
      2,
      'of session s2',
    ],
    [
      'a schema violation',
      (t: string) => `${t}{"message":{"id":"x"},"parts":[]}\n`,
      'invalid_transcript',
      4,
      'message',
    ],
    [
      'too many bytes',
      (t: string) => t + ' '.repeat(100_000),
      'transcript_too_large',
      0,
      'over the',
    ],
  ] as const)('refuses %s, naming the line', (_what, make, code, line, says) => {
    const base = formatTranscript(header, [user('a', null), user('b', 'a')]);
    const parsed = parseTranscript(make(base), limits);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toMatchObject({ code, line });
    expect(parsed.error.message).toContain(says);
  });

  it('refuses more messages than the limit', () => {
    const entries = Array.from({ length: 3 }, (_, i) =>
      user(`m${i}`, i === 0 ? null : `m${i - 1}`),
    );
    const parsed = parseTranscript(formatTranscript(header, entries), {
      ...limits,
      maxMessages: 2,
    });
    expect(parsed).toMatchObject({ ok: false, error: { code: 'transcript_too_large' } });
  });

  it('reads a chain of 20,000 messages', () => {
    const entries = Array.from({ length: 20_000 }, (_, i) =>
      user(`m${i}`, i === 0 ? null : `m${i - 1}`),
    );
    const parsed = parseTranscript(formatTranscript(header, entries), {
      maxBytes: 50_000_000,
      maxMessages: 20_000,
    });
    expect(parsed.ok).toBe(true);
  });
});
