/** The input ledger (SPEC.md R14.1, R14.2). */
import { z } from 'zod';
import { Attachment, Count, EpochMs, LedgerDelivery } from './payloads/common.ts';

export { LedgerDelivery } from './payloads/common.ts';

/**
 * Status of a ledger row (R14.2): `admitted` moves to exactly one terminal state, and a
 * terminal row never changes again.
 */
export const LedgerStatus = z.enum(['admitted', 'promoted', 'cancelled', 'discarded', 'failed']);
/** Status of a ledger row. */
export type LedgerStatus = z.infer<typeof LedgerStatus>;

/** The four terminal statuses (R14.2). */
export const TERMINAL_LEDGER_STATUSES = [
  'promoted',
  'cancelled',
  'discarded',
  'failed',
] as const satisfies readonly LedgerStatus[];

/** True for a terminal ledger status (R14.2). */
export function isTerminalLedgerStatus(status: LedgerStatus): boolean {
  return status !== 'admitted';
}

/** The full input payload kept on a ledger row (R14.1). */
export const LedgerInput = z.object({
  text: z.string(),
  attachments: z.array(Attachment).optional(),
});
/** The full input payload kept on a ledger row. */
export type LedgerInput = z.infer<typeof LedgerInput>;

/**
 * A ledger row (R14.1): id (= the input's command id), session, kind, delivery, the full
 * input, the sequence number at admission, the sequence number and message id at
 * promotion, status, status reason and times.
 */
export const LedgerRow = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  /** The kind of input, e.g. `prompt` (ours: free text). */
  kind: z.string(),
  delivery: LedgerDelivery,
  input: LedgerInput,
  /** Position among the queued inputs, for reorders (ours). */
  position: Count,
  admittedSequenceNumber: Count,
  promotedSequenceNumber: Count.nullable(),
  promotedMessageId: z.string().nullable(),
  status: LedgerStatus,
  /** Why the row reached its status, e.g. `session_resumed`, `user_cleared`. */
  statusReason: z.string().nullable(),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
/** A ledger row (R14.1). */
export type LedgerRow = z.infer<typeof LedgerRow>;
