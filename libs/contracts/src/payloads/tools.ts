/** Payload schemas of the six tool events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { Count, DurationMs, EpochMs, ErrorPayload, JsonValue } from './common.ts';

/** The execution plan of a tool batch (R16.2 `tool_call_scheduled.schedule`). */
const ToolSchedule = z.object({
  /** Groups of call ids that may run in parallel, in order. */
  parallelGroups: z.array(z.array(z.string())),
  executionOrder: z.array(z.string()),
});

/** `tool_call_scheduled` (R16.2): the model declared the call (tool part `pending`, R7.5). */
export const ToolCallScheduledPayload = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  input: JsonValue,
  assistantMessageId: z.string().optional(),
  schedule: ToolSchedule,
});
export type ToolCallScheduledPayload = z.infer<typeof ToolCallScheduledPayload>;

/** `tool_call_started` (R16.2): the call runs (tool part `running`, R7.5). */
export const ToolCallStartedPayload = z.object({
  toolCallId: z.string(),
  toolName: z.string().optional(),
  startedAt: EpochMs,
  readOnly: z.boolean().optional(),
});
export type ToolCallStartedPayload = z.infer<typeof ToolCallStartedPayload>;

/** `tool_call_progress` (R16.2); transient (R3.3). */
export const ToolCallProgressPayload = z.object({
  toolCallId: z.string(),
  elapsedMs: DurationMs.optional(),
  progress: z.number().optional(),
  total: z.number().optional(),
  message: z.string().optional(),
  outputBytes: Count.optional(),
  outputPreview: z.string().optional(),
});
export type ToolCallProgressPayload = z.infer<typeof ToolCallProgressPayload>;

/** The result of a tool call (R16.2 `tool_call_result.result`). */
const ToolCallResult = z.object({
  success: z.boolean(),
  content: z.string(),
  truncated: z.boolean().optional(),
  originalBytes: Count.optional(),
  returnedBytes: Count.optional(),
  /** Where the full output was spilled when truncated. */
  artifactPath: z.string().optional(),
});

/** `tool_call_result` (R16.2). `duration` in ms; `toolName` is ours (optional). */
export const ToolCallResultPayload = z.object({
  toolCallId: z.string(),
  toolName: z.string().optional(),
  result: ToolCallResult,
  duration: DurationMs,
});
export type ToolCallResultPayload = z.infer<typeof ToolCallResultPayload>;

/** `tool_call_error` (R16.2); `toolName` is ours (optional). */
export const ToolCallErrorPayload = z.object({
  toolCallId: z.string(),
  toolName: z.string().optional(),
  error: ErrorPayload,
});
export type ToolCallErrorPayload = z.infer<typeof ToolCallErrorPayload>;

/** `tool_batch_complete` (R16.2): removes the calls from the active list (R16.3). */
export const ToolBatchCompletePayload = z.object({
  toolCallIds: z.array(z.string()),
  successCount: Count,
  errorCount: Count,
});
export type ToolBatchCompletePayload = z.infer<typeof ToolBatchCompletePayload>;
