/**
 * Payload schemas of the control events (ours). The payload of `error` is the R16.1 error
 * payload itself: `ErrorPayload` of `common.ts` names both the shared shape and that
 * event's payload.
 */
import { z } from 'zod';

/** `interrupt` (ours): the user interrupted the running turn. */
export const InterruptPayload = z.object({
  reason: z.string().optional(),
});
export type InterruptPayload = z.infer<typeof InterruptPayload>;

/** `cancel` (ours): a turn or a queued input was cancelled. */
export const CancelPayload = z.object({
  reason: z.string().optional(),
  inputId: z.string().optional(),
});
export type CancelPayload = z.infer<typeof CancelPayload>;

/** `resume` (ours): a paused session continues. */
export const ResumePayload = z.object({
  reason: z.string().optional(),
});
export type ResumePayload = z.infer<typeof ResumePayload>;
