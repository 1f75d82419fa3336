import { LedgerStatus } from '@agentwire/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLedgerOperation, type LedgerOperation } from './ledger-state.ts';

const operations: readonly LedgerOperation[] = [
  { kind: 'promote' },
  { kind: 'cancel' },
  { kind: 'discard', reason: 'session_resumed' },
  { kind: 'discard', reason: 'user_cleared' },
  { kind: 'fail', reason: 'model_unavailable' },
  { kind: 'edit' },
  { kind: 'reorder' },
];

describe('ledger state machine (R14.2)', () => {
  it.each([
    [{ kind: 'promote' }, 'promoted'],
    [{ kind: 'cancel' }, 'cancelled'],
    [{ kind: 'discard', reason: 'session_resumed' }, 'discarded'],
    [{ kind: 'fail', reason: 'spawn' }, 'failed'],
  ] as const)('given an admitted row, when %o, then it becomes %s', (op, status) => {
    const result = applyLedgerOperation('admitted', op);
    expect(result).toMatchObject({ ok: true, status });
  });

  it('given an admitted row, when discarded on resume, then the reason is kept', () => {
    expect(
      applyLedgerOperation('admitted', { kind: 'discard', reason: 'session_resumed' }),
    ).toEqual({ ok: true, status: 'discarded', statusReason: 'session_resumed' });
  });

  it('given an admitted row, when edited or reordered, then it stays admitted', () => {
    expect(applyLedgerOperation('admitted', { kind: 'edit' })).toEqual({
      ok: true,
      status: 'admitted',
    });
    expect(applyLedgerOperation('admitted', { kind: 'reorder' })).toEqual({
      ok: true,
      status: 'admitted',
    });
  });

  it('given a terminal row, when any operation arrives, then it is refused and unchanged', () => {
    for (const status of LedgerStatus.options.filter((s) => s !== 'admitted')) {
      for (const op of operations) {
        expect(applyLedgerOperation(status, op)).toEqual({ ok: false, reason: 'terminal', status });
      }
    }
  });

  it('property: under any order of operations, a row leaves admitted at most once and never leaves a terminal state', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...operations), { maxLength: 30 }), (ops) => {
        let status: LedgerStatus = 'admitted';
        let firstTerminal: LedgerStatus | undefined;
        for (const op of ops) {
          const result = applyLedgerOperation(status, op);
          if (result.ok) status = result.status;
          if (firstTerminal === undefined && status !== 'admitted') firstTerminal = status;
          if (firstTerminal !== undefined) expect(status).toBe(firstTerminal);
        }
      }),
    );
  });
});
