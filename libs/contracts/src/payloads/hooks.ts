/**
 * Payload schemas of the nine hook events. `hook_run_*` follow R16.2; the four
 * `workspace_hook_*` events are ours (SPEC gives no fields).
 */
import { z } from 'zod';
import { DurationMs, ErrorPayload } from './common.ts';

/** The hook points of R16.2. */
const HookEventName = z.enum([
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
]);

/** One workspace hook awaiting review (ours). */
const WorkspaceHook = z.object({
  hookEventName: HookEventName,
  command: z.string(),
});

/** `workspace_hook_review_requested` (ours): the user must approve workspace hooks. */
export const WorkspaceHookReviewRequestedPayload = z.object({
  reviewId: z.string(),
  hooks: z.array(WorkspaceHook),
  source: z.string().optional(),
});
/** Payload of `workspace_hook_review_requested`. */
export type WorkspaceHookReviewRequestedPayload = z.infer<
  typeof WorkspaceHookReviewRequestedPayload
>;

/** `workspace_hook_review_settled` (ours). */
export const WorkspaceHookReviewSettledPayload = z.object({
  reviewId: z.string(),
  decision: z.enum(['approved', 'rejected']),
});
export type WorkspaceHookReviewSettledPayload = z.infer<typeof WorkspaceHookReviewSettledPayload>;

/** `workspace_hook_review_superseded` (ours): a newer review replaced this one. */
export const WorkspaceHookReviewSupersededPayload = z.object({
  reviewId: z.string(),
  supersededBy: z.string(),
});
/** Payload of `workspace_hook_review_superseded`. */
export type WorkspaceHookReviewSupersededPayload = z.infer<
  typeof WorkspaceHookReviewSupersededPayload
>;

/** `workspace_hook_admission_updated` (ours): whether workspace hooks may run. */
export const WorkspaceHookAdmissionUpdatedPayload = z.object({
  admission: z.enum(['allowed', 'blocked', 'pending_review']),
  reviewId: z.string().optional(),
});
/** Payload of `workspace_hook_admission_updated`. */
export type WorkspaceHookAdmissionUpdatedPayload = z.infer<
  typeof WorkspaceHookAdmissionUpdatedPayload
>;

/** How a hook run ended (R16.2). */
const HookOutcome = z.enum(['success', 'blocked', 'failed', 'cancelled', 'timed_out']);

const hookRunFields = {
  hookRunId: z.string(),
  hookIndex: z.number().int().nonnegative(),
  hookEventName: HookEventName,
  outcome: HookOutcome.optional(),
  durationMs: DurationMs.optional(),
};

/** `hook_run_started` (R16.2). */
export const HookRunStartedPayload = z.object(hookRunFields);
export type HookRunStartedPayload = z.infer<typeof HookRunStartedPayload>;

/** `hook_run_progress` (R16.2; `message` is ours). */
export const HookRunProgressPayload = z.object({
  ...hookRunFields,
  message: z.string().optional(),
});
export type HookRunProgressPayload = z.infer<typeof HookRunProgressPayload>;

/** `hook_run_completed` (R16.2). */
export const HookRunCompletedPayload = z.object(hookRunFields);
export type HookRunCompletedPayload = z.infer<typeof HookRunCompletedPayload>;

/** `hook_run_failed` (R16.2; `error` is ours). */
export const HookRunFailedPayload = z.object({
  ...hookRunFields,
  error: ErrorPayload.optional(),
});
export type HookRunFailedPayload = z.infer<typeof HookRunFailedPayload>;

/** `hook_run_blocked` (R16.2; `reason` is ours). */
export const HookRunBlockedPayload = z.object({
  ...hookRunFields,
  reason: z.string().optional(),
});
export type HookRunBlockedPayload = z.infer<typeof HookRunBlockedPayload>;
