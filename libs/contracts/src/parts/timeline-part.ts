/**
 * Timeline parts (SPEC.md R7.7, R16.4): dividers on model switch, compaction, goal
 * verification and fork, visible to the UI and never to the model.
 */
import { z } from 'zod';
import { EpochMs, ModelSelection } from '../payloads/common.ts';
import { partBaseFields } from './part-base.ts';

const timelineFields = {
  ...partBaseFields,
  type: z.literal('timeline'),
  /** The divider's label for the UI. */
  title: z.string(),
  time: z.object({ created: EpochMs }),
};

/** Divider after a compaction (ours: fields). */
const ContextCompactionTimelinePart = z.object({
  ...timelineFields,
  kind: z.literal('context_compaction'),
  boundaryId: z.string().optional(),
  preCompactTokenCount: z.number().int().nonnegative().optional(),
  postCompactTokenCount: z.number().int().nonnegative().optional(),
});

/** Divider of a goal verification (R6 `target_completion_verification`; ours: fields). */
const GoalVerificationTimelinePart = z.object({
  ...timelineFields,
  kind: z.literal('goal_verification'),
  targetId: z.string(),
  verificationId: z.string(),
  status: z.enum(['started', 'completed', 'failed_closed', 'cancelled']),
  passed: z.boolean().optional(),
  reason: z.string().optional(),
});

/** Divider of a fork (ours: fields). */
const SessionForkTimelinePart = z.object({
  ...timelineFields,
  kind: z.literal('session_fork'),
  originalSessionId: z.string(),
  forkedSessionId: z.string().optional(),
});

/**
 * Divider of a model switch (R7.9: deferred, coalesced, written when the next turn
 * starts). `from` is null when there was no previous model.
 */
const ModelChangeTimelinePart = z.object({
  ...timelineFields,
  kind: z.literal('model_change'),
  from: ModelSelection.nullable(),
  to: ModelSelection,
});

/** A timeline part, discriminated on `kind` (R7.7, R16.4). */
export const TimelinePart = z.discriminatedUnion('kind', [
  ContextCompactionTimelinePart,
  GoalVerificationTimelinePart,
  SessionForkTimelinePart,
  ModelChangeTimelinePart,
]);
export type TimelinePart = z.infer<typeof TimelinePart>;
