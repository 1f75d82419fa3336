import { describe, expect, it } from 'vitest';
import { LedgerBook } from './ledger-book.ts';

describe('LedgerBook: the engine moves an input only as the ledger may (R14.2)', () => {
  it('admitted moves to exactly one terminal status, and a terminal one never moves again', () => {
    const book = new LedgerBook();
    book.admit('in-1');
    book.apply('in-1', { kind: 'reorder' });
    book.apply('in-1', { kind: 'edit' });
    book.apply('in-1', { kind: 'promote' });
    for (const op of [
      { kind: 'promote' },
      { kind: 'cancel' },
      { kind: 'reorder' },
      { kind: 'fail', reason: 'start_failed' },
    ] as const) {
      expect(() => book.apply('in-1', op)).toThrow(
        expect.objectContaining({
          code: 'input_not_pending',
          detail: { inputId: 'in-1', status: 'promoted' },
        }),
      );
    }
  });

  it('maps a discard reason to its operation, and promoted to none', () => {
    const book = new LedgerBook();
    book.admit('a');
    book.discard('a', 'user_removed');
    expect(() => book.discard('a', 'turn_cancelled')).toThrow(/already cancelled/);
    book.admit('b');
    book.discard('b', 'promoted');
    book.discard('b', 'start_failed');
    expect(() => book.apply('b', { kind: 'promote' })).toThrow(/already failed/);
  });

  it('refuses an input it never admitted, naming it', () => {
    expect(() => new LedgerBook().apply('ghost', { kind: 'cancel' })).toThrow(
      /input ghost was not admitted here/,
    );
  });
});
