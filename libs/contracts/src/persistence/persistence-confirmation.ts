/** The worker's answer to a persistence command (DESIGN.md `aw.confirm.<sid>`). */
import { z } from 'zod';

/**
 * What happened to a command that was handled:
 * - `applied`: written (for `ensure_session`, the row was created);
 * - `duplicate`: already written (same command id, or same version: decision 0011), or the
 *   session row already existed;
 * - `stale`: a newer version of the row was already stored, or a tool part would have
 *   moved back (R7.5);
 * - `condition_failed`: a compare-and-set did not hold (`update_title`, R9.9).
 */
export const PersistenceOutcome = z.enum(['applied', 'duplicate', 'stale', 'condition_failed']);
/** What happened to a handled command. */
export type PersistenceOutcome = z.infer<typeof PersistenceOutcome>;

/** Why a command could not be handled. */
const PersistenceFailure = z.object({
  code: z.string(),
  message: z.string(),
  /** True when sending the same command again may succeed. */
  retryable: z.boolean(),
});

/**
 * The confirmation of one command, published after the commit: `ok: true` with its
 * outcome, or `ok: false` with the failure.
 */
export const PersistenceConfirmation = z.discriminatedUnion('ok', [
  z.object({
    commandId: z.string(),
    sessionId: z.string(),
    ok: z.literal(true),
    outcome: PersistenceOutcome,
  }),
  z.object({
    commandId: z.string(),
    sessionId: z.string(),
    ok: z.literal(false),
    error: PersistenceFailure,
  }),
]);
/** The confirmation of one command. */
export type PersistenceConfirmation = z.infer<typeof PersistenceConfirmation>;
