/** The input ledger (SPEC.md R14.1, R14.2). */
import { z } from 'zod';

/**
 * Status of a ledger row (R14.2): `admitted` moves to exactly one terminal state, and a
 * terminal row never changes again.
 */
export const LedgerStatus = z.enum(['admitted', 'promoted', 'cancelled', 'discarded', 'failed']);
/** Status of a ledger row. */
export type LedgerStatus = z.infer<typeof LedgerStatus>;
