/**
 * The non-tool, non-timeline part types of R7.2, after OpenCode's session model with
 * camel-cased ids (`sessionId`, `messageId`).
 */
import { z } from 'zod';
import { Count, EpochMs, ErrorPayload, JsonValue, ModelSelection } from '../payloads/common.ts';
import { PartTimeSpan, partBaseFields } from './part-base.ts';

/** Text of a message (R7.2). `synthetic` marks runtime-added text (R8). */
export const TextPart = z.object({
  ...partBaseFields,
  type: z.literal('text'),
  text: z.string(),
  synthetic: z.boolean().optional(),
  /** Kept in the transcript but never sent to the model. */
  ignored: z.boolean().optional(),
  time: PartTimeSpan.optional(),
});
/** Text of a message. */
export type TextPart = z.infer<typeof TextPart>;

/** Model reasoning (R7.2). */
export const ReasoningPart = z.object({
  ...partBaseFields,
  type: z.literal('reasoning'),
  text: z.string(),
  time: PartTimeSpan,
});
/** Model reasoning. */
export type ReasoningPart = z.infer<typeof ReasoningPart>;

/** A file attached to a message (R7.2); `url` may be a `data:` or `file:` URL. */
export const FilePart = z.object({
  ...partBaseFields,
  type: z.literal('file'),
  mime: z.string(),
  filename: z.string().optional(),
  url: z.string(),
});
/** A file attached to a message. */
export type FilePart = z.infer<typeof FilePart>;

/** Start of a model step (R7.2); `snapshot` is the workspace snapshot ref. */
export const StepStartPart = z.object({
  ...partBaseFields,
  type: z.literal('step-start'),
  snapshot: z.string().optional(),
});
/** Start of a model step. */
export type StepStartPart = z.infer<typeof StepStartPart>;

/** End of a model step with its cost and tokens (R7.2). */
export const StepFinishPart = z.object({
  ...partBaseFields,
  type: z.literal('step-finish'),
  reason: z.string(),
  snapshot: z.string().optional(),
  cost: z.number().nonnegative(),
  tokens: z.object({
    input: Count,
    output: Count,
    reasoning: Count,
    cache: z.object({ read: Count, write: Count }),
  }),
});
/** End of a model step. */
export type StepFinishPart = z.infer<typeof StepFinishPart>;

/** A workspace snapshot reference (R7.2). */
export const SnapshotPart = z.object({
  ...partBaseFields,
  type: z.literal('snapshot'),
  snapshot: z.string(),
});
/** A workspace snapshot reference. */
export type SnapshotPart = z.infer<typeof SnapshotPart>;

/** Files changed by a step, against a snapshot hash (R7.2). */
export const PatchPart = z.object({
  ...partBaseFields,
  type: z.literal('patch'),
  hash: z.string(),
  files: z.array(z.string()),
});
/** Files changed by a step. */
export type PatchPart = z.infer<typeof PatchPart>;

/** A mention of an agent in the input (R7.2). */
export const AgentPart = z.object({
  ...partBaseFields,
  type: z.literal('agent'),
  name: z.string(),
  source: z.object({ value: z.string(), start: Count, end: Count }).optional(),
});
/** A mention of an agent. */
export type AgentPart = z.infer<typeof AgentPart>;

/** A retried model request (R7.2). */
export const RetryPart = z.object({
  ...partBaseFields,
  type: z.literal('retry'),
  attempt: z.number().int().positive(),
  error: ErrorPayload,
  time: z.object({ created: EpochMs }),
});
/** A retried model request. */
export type RetryPart = z.infer<typeof RetryPart>;

/** Marks a compaction request in the transcript (R7.2). */
export const CompactionPart = z.object({
  ...partBaseFields,
  type: z.literal('compaction'),
  auto: z.boolean(),
});
/** Marks a compaction request. */
export type CompactionPart = z.infer<typeof CompactionPart>;

/** A sub-task handed to another agent (R7.2). */
export const SubtaskPart = z.object({
  ...partBaseFields,
  type: z.literal('subtask'),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: ModelSelection.optional(),
  command: z.string().optional(),
  /** Free-form extra data of the sub-task (ours). */
  data: JsonValue.optional(),
});
/** A sub-task handed to another agent. */
export type SubtaskPart = z.infer<typeof SubtaskPart>;
