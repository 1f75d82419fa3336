/** Statuses of an input-ledger row (R14.2). */
const LEDGER_STATUSES = ['admitted', 'promoted', 'cancelled', 'discarded', 'failed'] as const;

/** One status of R14.2. */
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/** The four terminal statuses: a row in one never changes again (R14.2). */
type TerminalLedgerStatus = Exclude<LedgerStatus, 'admitted'>;

/** Reasons a row is discarded (R14.2). */
type LedgerDiscardReason = 'session_resumed' | 'user_cleared';

/** An operation on a ledger row (R14.2, R16.4). */
export type LedgerOperation =
  | { readonly kind: 'promote' }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'discard'; readonly reason: LedgerDiscardReason }
  | { readonly kind: 'fail'; readonly reason: string }
  | { readonly kind: 'edit' }
  | { readonly kind: 'reorder' };

/** Outcome of {@link applyLedgerOperation}. */
export type LedgerTransition =
  | {
      readonly ok: true;
      readonly status: LedgerStatus;
      /** The status reason to store, for `discard` and `fail`. */
      readonly statusReason?: string;
    }
  | { readonly ok: false; readonly reason: 'terminal'; readonly status: TerminalLedgerStatus };

function isTerminal(status: LedgerStatus): status is TerminalLedgerStatus {
  return status !== 'admitted';
}

const TARGET: { readonly [K in LedgerOperation['kind']]: LedgerStatus } = {
  promote: 'promoted',
  cancel: 'cancelled',
  discard: 'discarded',
  fail: 'failed',
  edit: 'admitted',
  reorder: 'admitted',
};

/**
 * Applies one operation to a row's status (R14.2): `admitted` moves to exactly one terminal
 * state (`promoted`, `cancelled`, `discarded`, `failed`); edits and reorders apply only
 * while `admitted` and keep it; a terminal row never changes again, so every operation on it
 * is refused with `terminal` (including a repeat of the one that closed it).
 */
export function applyLedgerOperation(
  status: LedgerStatus,
  operation: LedgerOperation,
): LedgerTransition {
  if (isTerminal(status)) return { ok: false, reason: 'terminal', status };
  const next = TARGET[operation.kind];
  if (operation.kind === 'discard' || operation.kind === 'fail') {
    return { ok: true, status: next, statusReason: operation.reason };
  }
  return { ok: true, status: next };
}
