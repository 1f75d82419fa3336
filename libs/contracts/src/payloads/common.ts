/**
 * Shapes shared by several payload schemas (SPEC.md R16.1 and a few of ours).
 *
 * Every object schema in this package is a plain `z.object`: required fields are required,
 * unknown extra keys are accepted and stripped on parse (docs/decisions/0010).
 */
import { z } from 'zod';

/** Any JSON value (tool inputs, free-form results). `undefined` is not a JSON value. */
export const JsonValue = z.json();
export type JsonValue = z.infer<typeof JsonValue>;

/** Non-negative integer (counts, byte sizes, token counts). */
export const Count = z.number().int().nonnegative();

/** Epoch milliseconds (integer, >= 0). */
export const EpochMs = z.number().int().nonnegative();

/** Duration in milliseconds (non-negative, fractions allowed). */
export const DurationMs = z.number().nonnegative();

/** Where an error came from (R16.1 `attribution.source`). */
const ErrorSource = z.enum(['provider', 'runtime', 'tool', 'network']);

/** Attribution of an error to a provider, model, tool or the network (R16.1). */
const ErrorAttribution = z.object({
  source: ErrorSource.optional(),
  reason: z.string().optional(),
  providerId: z.string().optional(),
  modelId: z.string().optional(),
  statusCode: z.number().int().optional(),
  retryable: z.boolean().optional(),
});

/**
 * The error payload of R16.1: embedded as `error` in `turn_error`, `model_error`,
 * `tool_call_error` and others, and also the whole payload of the `error` control event.
 */
export const ErrorPayload = z.object({
  /** Error class or category, e.g. `provider_error`, `ToolTimeout`. */
  type: z.string(),
  message: z.string(),
  code: z.string().optional(),
  detail: z.string().optional(),
  retryable: z.boolean().optional(),
  attribution: ErrorAttribution.optional(),
});
export type ErrorPayload = z.infer<typeof ErrorPayload>;

/**
 * Token usage of one model request (R16.1). Input tokens already include cache reads and
 * writes; context tokens = input + output, or total when that sum is 0.
 */
export const ModelUsage = z.object({
  inputTokens: Count.optional(),
  outputTokens: Count.optional(),
  totalTokens: Count.optional(),
  cacheReadTokens: Count.optional(),
  cacheWriteTokens: Count.optional(),
  reasoningTokens: Count.optional(),
});
/** Token usage of one model request (R16.1). */
export type ModelUsage = z.infer<typeof ModelUsage>;

/**
 * Context tokens of a usage record (R16.1): input + output tokens, or total tokens when
 * that sum is 0.
 */
export function contextTokensOf(usage: ModelUsage): number {
  const sum = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return sum === 0 ? (usage.totalTokens ?? 0) : sum;
}

/**
 * Why a model request was made (R16.1). Only `main_turn` (or an absent source, unless
 * `stopReason` is `tool_internal`) updates context usage (R9.7).
 */
export const QuerySource = z.enum([
  'main_turn',
  'compact',
  'session_title',
  'goal_summary_title',
  'target_completion_verification',
  'subagent',
  'workflow_child',
  'unknown',
]);
/** Why a model request was made (R16.1). */
export type QuerySource = z.infer<typeof QuerySource>;

/** A provider and model, as chosen for a session or a request (R16.2 `model_selected`). */
export const ModelSelection = z.object({
  providerId: z.string(),
  modelId: z.string(),
  reasoningLevel: z.string().optional(),
});
/** A provider and model (R16.2). */
export type ModelSelection = z.infer<typeof ModelSelection>;

/**
 * The twelve sources of synthetic user-role notices (R8.1); also `turn_started.inputSource`
 * (R16.2).
 */
export const SyntheticSource = z.enum([
  'background_task',
  'subagent',
  'subagent_message',
  'goal-continuation',
  'goal_state_change',
  'plugin_reference',
  'selection_side_chat',
  'fork',
  'rewind',
  'todo_reminder',
  'shared_context',
  'workflow_launch',
]);
/** One of the twelve synthetic notice sources (R8.1). */
export type SyntheticSource = z.infer<typeof SyntheticSource>;

/** The four title sources (R9.1). Only `custom` is never overwritten automatically (R9.3). */
export const TitleSource = z.enum(['default', 'first_input', 'generated', 'custom']);
export type TitleSource = z.infer<typeof TitleSource>;

/** Session modes (R16.2 `session_mode_changed`); a new session starts in `build` (R16.3). */
export const SessionMode = z.enum(['plan', 'build', 'edit', 'yolo', 'auto']);
export type SessionMode = z.infer<typeof SessionMode>;

/** How a queued input is delivered (R14.1): start a turn now, guide the running one, queue. */
export const LedgerDelivery = z.enum(['startNow', 'guide', 'queue']);
/** How a queued input is delivered (R14.1). */
export type LedgerDelivery = z.infer<typeof LedgerDelivery>;

/** An attachment of an input (R16.2 `turn_started.attachments`). */
export const Attachment = z.object({
  fileName: z.string(),
  mime: z.string(),
  bytes: Count,
});
export type Attachment = z.infer<typeof Attachment>;

/** Scope of a checkpoint or a rewind (R16.2). */
export const WorkspaceScope = z.enum(['conversation', 'workspace', 'both']);
/** Scope of a checkpoint or a rewind (R16.2). */
export type WorkspaceScope = z.infer<typeof WorkspaceScope>;
