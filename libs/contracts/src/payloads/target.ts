/** Payload schemas of the two target (goal) events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { Count } from './common.ts';

/** Status of a goal (R16.2). */
const TargetStatus = z.enum(['active', 'paused', 'budget_limited', 'complete']);

/** A goal (R16.2 `target_changed.target`). */
export const Target = z.object({
  targetId: z.string(),
  objective: z.string(),
  summaryTitle: z.string().nullable(),
  status: TargetStatus,
  tokenBudget: Count.nullable(),
  tokensUsed: Count,
  timeUsedSeconds: z.number().nonnegative(),
});
/** A goal. */
export type Target = z.infer<typeof Target>;

/** `target_changed` (R16.2); action `set` with a new target clears verifications (R16.3). */
export const TargetChangedPayload = z.object({
  action: z.enum([
    'set',
    'status_updated',
    'cleared',
    'usage_accounted',
    'run_started',
    'run_finished',
    'summary_updated',
  ]),
  source: z.enum(['command', 'tool', 'runtime']),
  target: Target.nullable(),
});
export type TargetChangedPayload = z.infer<typeof TargetChangedPayload>;

/** The verdict of a goal-completion verification (R16.2). */
export const TargetVerification = z.object({
  passed: z.boolean(),
  reason: z.string(),
  nextAction: z.string().optional(),
});
/** The verdict of a goal-completion verification. */
export type TargetVerification = z.infer<typeof TargetVerification>;

/**
 * `target_completion_verification` (R16.2); durable (R6): a session entry plus a
 * goal-verification timeline divider.
 */
export const TargetCompletionVerificationPayload = z.object({
  targetId: z.string(),
  verificationId: z.string(),
  status: z.enum(['started', 'completed', 'failed_closed', 'cancelled']),
  verification: TargetVerification.optional(),
});
/** Payload of `target_completion_verification`. */
export type TargetCompletionVerificationPayload = z.infer<
  typeof TargetCompletionVerificationPayload
>;
