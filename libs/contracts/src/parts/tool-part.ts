/** The tool part and its four states (SPEC.md R7.5, R7.6). */
import { z } from 'zod';
import { Count, EpochMs, JsonValue } from '../payloads/common.ts';
import { PartTimeSpan, partBaseFields } from './part-base.ts';

/** One file the model read, so a resumed session rebuilds "files read" (R7.5). (ours) */
const FileReadRecord = z.object({
  path: z.string(),
  readAt: EpochMs,
  contentHash: z.string().optional(),
  sizeBytes: Count.optional(),
  /** First line read (0-based) and line count, when the read was partial. */
  offset: Count.optional(),
  limit: Count.optional(),
});

/** Serialisation facts of a tool output (R7.5). */
const ToolOutputSerialization = z.object({
  truncated: z.boolean(),
  rawBytes: Count,
  returnedBytes: Count,
  /** Where the full output was written when truncated. */
  spillPath: z.string().optional(),
});

/** The current version of {@link ToolCompletionMetadata}. */
export const TOOL_COMPLETION_SCHEMA_VERSION = 1;

/**
 * Completion metadata of a tool part (R7.5): a schema version, a display payload for the
 * UI, serialisation facts and the snapshot of files the model read.
 */
export const ToolCompletionMetadata = z.object({
  schemaVersion: z.number().int().positive(),
  display: JsonValue.optional(),
  serialization: ToolOutputSerialization,
  filesRead: z.array(FileReadRecord).optional(),
});
/** Completion metadata of a tool part (R7.5). */
export type ToolCompletionMetadata = z.infer<typeof ToolCompletionMetadata>;

/** `pending`: the model declared the call (R7.5). */
const ToolStatePending = z.object({
  status: z.literal('pending'),
  input: JsonValue,
  /** The raw, possibly partial, input text as streamed. */
  raw: z.string().optional(),
});
/** `running`: the batch started (R7.5). */
const ToolStateRunning = z.object({
  status: z.literal('running'),
  input: JsonValue,
  title: z.string().optional(),
  time: z.object({ start: EpochMs }),
});
/** `completed` (R7.5): output plus completion metadata. */
const ToolStateCompleted = z.object({
  status: z.literal('completed'),
  input: JsonValue,
  output: z.string(),
  title: z.string().optional(),
  metadata: ToolCompletionMetadata,
  time: z.object({ start: EpochMs, end: EpochMs, compacted: EpochMs.optional() }),
});
/** `error` (R7.5). */
const ToolStateError = z.object({
  status: z.literal('error'),
  input: JsonValue,
  error: z.string(),
  metadata: ToolCompletionMetadata.optional(),
  time: PartTimeSpan,
});

/** The state of a tool part, discriminated on `status` (R7.5). */
export const ToolState = z.discriminatedUnion('status', [
  ToolStatePending,
  ToolStateRunning,
  ToolStateCompleted,
  ToolStateError,
]);
/** The state of a tool part. */
export type ToolState = z.infer<typeof ToolState>;

/**
 * The four statuses of a tool part (R7.5).
 *
 * @internal Exported for its tests.
 */
export type ToolPartStatus = ToolState['status'];

/** Part-level metadata of a tool part (ours): the original name under R7.6. */
const ToolPartMetadata = z.object({
  originalToolName: z.string().optional(),
});

/**
 * A tool part (R7.5): one part id written as `pending`, `running`, then `completed` or
 * `error`. `toolName` is never empty: store an empty name through `normalizeToolName`
 * (R7.6).
 */
export const ToolPart = z.object({
  ...partBaseFields,
  type: z.literal('tool'),
  toolCallId: z.string().min(1),
  toolName: z.string().regex(/\S/, 'must not be empty: use normalizeToolName (R7.6)'),
  state: ToolState,
  metadata: ToolPartMetadata.optional(),
});
export type ToolPart = z.infer<typeof ToolPart>;
