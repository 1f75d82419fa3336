import { describe, expect, it } from 'vitest';
import { historyCursor, listCursor, readHistoryCursor, readListCursor } from './query-cursor.ts';

const FILTERS = JSON.stringify(['/repo', '*', null, false]);

describe('history cursors', () => {
  it('read back what they were issued with', () => {
    const cursor = historyCursor('s1', 'msg-9', 'older');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(readHistoryCursor(cursor, 's1')).toEqual({
      ok: true,
      messageId: 'msg-9',
      direction: 'older',
    });
  });

  it('carry the chain their page was read along while it fits 1024 characters (0248)', () => {
    const chain = {
      leaf: 'msg-20',
      runs: [
        ['msg-12', 'msg-20'],
        ['msg-1', 'msg-7'],
      ] as const,
    };
    const cursor = historyCursor('s1', 'msg-12', 'older', chain);
    expect(readHistoryCursor(cursor, 's1')).toEqual({
      ok: true,
      messageId: 'msg-12',
      direction: 'older',
      chain: { leaf: 'msg-20', runs: chain.runs },
    });
    // Runs of long ids that would not fit: the cursor goes without them.
    const id = (n: number) => `msg_${String(n).padStart(40, '0')}`;
    const long = {
      leaf: id(99),
      runs: Array.from({ length: 16 }, (_, i) => [id(i), id(i)] as const),
    };
    const plain = historyCursor('s1', 'msg-12', 'older', long);
    expect(plain.length).toBeLessThanOrEqual(1024);
    expect(readHistoryCursor(plain, 's1')).toEqual({
      ok: true,
      messageId: 'msg-12',
      direction: 'older',
    });
  });

  it('refuse a chain that is not one this service writes', () => {
    const forge = (c: unknown) =>
      Buffer.from(JSON.stringify({ v: 1, k: 'history', s: 's1', m: 'x', d: 'older', c })).toString(
        'base64url',
      );
    const run = ['a', 'b'];
    for (const c of [
      { l: 'x', r: [] },
      { l: '', r: [run] },
      { l: 'x', r: [['a']] },
      { l: 'x', r: [[1, 2]] },
      { l: 'x', r: Array.from({ length: 17 }, () => run) },
      { l: 'x', r: [run], extra: true },
    ]) {
      expect(readHistoryCursor(forge(c), 's1'), JSON.stringify(c)).toEqual({
        ok: false,
        message: 'cursor is not one this service issued',
      });
    }
  });

  it('refuse another session, a list cursor, and anything not issued here', () => {
    const cursor = historyCursor('s1', 'msg-9', 'newer');
    expect(readHistoryCursor(cursor, 's2')).toEqual({
      ok: false,
      message: 'cursor belongs to session s1, not s2',
    });
    expect(readHistoryCursor(listCursor(FILTERS, '1', 's1'), 's1')).toMatchObject({
      message: 'cursor is a session-list cursor, not a history cursor',
    });
    const forged = Buffer.from(JSON.stringify({ v: 1, k: 'history', s: 's1', m: 'x', d: 'up' }));
    for (const bad of ['', 'bm90LWpzb24', forged.toString('base64url')]) {
      expect(readHistoryCursor(bad, 's1')).toEqual({
        ok: false,
        message: 'cursor is not one this service issued',
      });
    }
  });
});

describe('list cursors', () => {
  it('read back their key for the same filters only', () => {
    const cursor = listCursor(FILTERS, '1700000000000123', 'ls-4');
    expect(readListCursor(cursor, FILTERS)).toEqual({
      ok: true,
      updatedUs: '1700000000000123',
      id: 'ls-4',
    });
    expect(readListCursor(cursor, JSON.stringify(['/repo', '*', null, true]))).toEqual({
      ok: false,
      message: 'cursor was issued for other filters than these',
    });
    expect(readListCursor(historyCursor('s1', 'm', 'older'), FILTERS)).toMatchObject({
      message: 'cursor is a history cursor, not a session-list cursor',
    });
  });

  it('refuse a key that is not a number of microseconds', () => {
    const forged = Buffer.from(
      JSON.stringify({ v: 1, k: 'sessions', f: FILTERS, u: '1 or 1=1', i: 'x' }),
    ).toString('base64url');
    expect(readListCursor(forged, FILTERS)).toMatchObject({ ok: false });
  });
});
