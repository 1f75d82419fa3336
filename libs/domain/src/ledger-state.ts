import type { SteerDiscardReason } from '@agentwire/contracts';

/** Statuses of an input-ledger row (R14.2). */
const LEDGER_STATUSES = ['admitted', 'promoted', 'cancelled', 'discarded', 'failed'] as const;

/** One status of R14.2. */
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/** The four terminal statuses: a row in one never changes again (R14.2). */
type TerminalLedgerStatus = Exclude<LedgerStatus, 'admitted'>;

/** Reasons a row is discarded (R14.2): the wire's discard reasons, and a user's clear. */
type LedgerDiscardReason = SteerDiscardReason | 'user_cleared';

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

/**
 * The ledger operation a `turn_steer_discarded` reason stands for (R6, R14.2, R14.4):
 * `user_removed` and `user_cleared` cancel; `turn_cancelled`, `turn_failed` and `session_resumed` discard;
 * `start_failed` fails; `promoted` is none (the promotion already closed the row). The
 * engine applies it before it emits the event, the store when it writes the row.
 */
export function ledgerOperationOfDiscard(reason: SteerDiscardReason): LedgerOperation | undefined {
  switch (reason) {
    case 'user_removed':
    case 'user_cleared':
      return { kind: 'cancel' };
    case 'turn_cancelled':
    case 'turn_failed':
    case 'session_resumed':
      return { kind: 'discard', reason };
    case 'start_failed':
      return { kind: 'fail', reason };
    case 'promoted':
      return undefined;
    default: {
      const unknownReason: never = reason;
      throw new Error(`unknown discard reason ${String(unknownReason)}`);
    }
  }
}
