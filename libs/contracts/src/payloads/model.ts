/** Payload schemas of the fifteen model events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import {
  Count,
  DurationMs,
  ErrorPayload,
  JsonValue,
  ModelSelection,
  ModelUsage,
  QuerySource,
} from './common.ts';

/** A tool call requested by the model inside a request message (R16.2). */
const ModelToolCall = z.object({
  id: z.string(),
  name: z.string(),
  input: JsonValue,
});

/** One message of a model request (R16.2 `model_request.messages`). */
export const ModelRequestMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  toolCalls: z.array(ModelToolCall).optional(),
  toolCallId: z.string().optional(),
});
/** One message of a model request. */
export type ModelRequestMessage = z.infer<typeof ModelRequestMessage>;

/**
 * Where a `model_request` that carries only its new messages continues from (issue 18,
 * docs/decisions/0161): the session's earlier `model_request` (its number and id) and how
 * many of that request's messages, in full, come first unchanged.
 */
export const ModelRequestBase = z.object({
  sequenceNumber: z.number().int().positive(),
  eventId: z.string(),
  messageCount: Count,
});
/** The base of a delta `model_request`. */
export type ModelRequestBase = z.infer<typeof ModelRequestBase>;

/**
 * `model_request` (R16.2, R9.7). Without `base`, `messages` is the whole request. With
 * `base` (ours, docs/decisions/0161), the request the model received is the base request's
 * first `base.messageCount` messages (rebuilt the same way) followed by `messages`; then
 * `messageCount` is the whole request's length and `digest` (`sha256:<hex>`, a chain over
 * every message's JSON) lets a consumer check what it rebuilt.
 */
export const ModelRequestPayload = z.object({
  messages: z.array(ModelRequestMessage),
  base: ModelRequestBase.optional(),
  messageCount: Count.optional(),
  digest: z.string().optional(),
  providerId: z.string(),
  modelId: z.string(),
  querySource: QuerySource.optional(),
  temperature: z.number().optional(),
  maxTokens: Count.optional(),
  toolCount: Count.optional(),
});
/** Payload of `model_request`. */
export type ModelRequestPayload = z.infer<typeof ModelRequestPayload>;

/**
 * `model_selected` (R16.2). `previousModelSelection: null` marks an explicit boundary;
 * absent means unknown.
 */
export const ModelSelectedPayload = z.object({
  modelSelection: ModelSelection,
  previousModelSelection: ModelSelection.nullable().optional(),
  contextWindow: Count.optional(),
});
/** Payload of `model_selected`. */
export type ModelSelectedPayload = z.infer<typeof ModelSelectedPayload>;

/** Kinds of streaming chunk (R16.2 `model_streaming.kind`). */
const StreamChunkKind = z.enum([
  'start',
  'text_start',
  'text_delta',
  'text_end',
  'reasoning_start',
  'reasoning_delta',
  'reasoning_end',
  'tool_input_start',
  'tool_input_delta',
  'tool_input_end',
  'tool_call',
  'finish',
  'error',
]);

/** `model_streaming` (R16.2); transient (R3.3). */
export const ModelStreamingPayload = z.object({
  delta: z.string(),
  done: z.boolean(),
  kind: StreamChunkKind.optional(),
  assistantMessageId: z.string().optional(),
  partId: z.string().optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
});
/** Payload of `model_streaming`. */
export type ModelStreamingPayload = z.infer<typeof ModelStreamingPayload>;

/**
 * `model_complete` (R16.2). Updates context usage only for `querySource: "main_turn"`
 * (R9.7, R16.1). `providerId` and `modelId` are ours (optional).
 */
export const ModelCompletePayload = z.object({
  content: z.string(),
  stopReason: z.string(),
  usage: ModelUsage,
  querySource: QuerySource.optional(),
  toolCallCount: Count.optional(),
  contextWindow: Count.optional(),
  providerId: z.string().optional(),
  modelId: z.string().optional(),
});
/** Payload of `model_complete`. */
export type ModelCompletePayload = z.infer<typeof ModelCompletePayload>;

/** `model_error` (R16.2); `querySource`, `providerId` and `modelId` are ours (optional). */
export const ModelErrorPayload = z.object({
  error: ErrorPayload,
  retryable: z.boolean(),
  querySource: QuerySource.optional(),
  providerId: z.string().optional(),
  modelId: z.string().optional(),
});
/** Payload of `model_error`. */
export type ModelErrorPayload = z.infer<typeof ModelErrorPayload>;

/** `model_network_status` (ours); transient (R3.3): the state of the streaming connection. */
export const ModelNetworkStatusPayload = z.object({
  status: z.enum(['connecting', 'waiting', 'streaming', 'stalled', 'reconnecting', 'closed']),
  elapsedMs: DurationMs.optional(),
  attempt: Count.optional(),
});
/** Payload of `model_network_status`. */
export type ModelNetworkStatusPayload = z.infer<typeof ModelNetworkStatusPayload>;

/** `model_anomaly_warning` (ours): the model's output looked wrong (loops, empty replies). */
export const ModelAnomalyWarningPayload = z.object({
  kind: z.string(),
  message: z.string(),
  providerId: z.string().optional(),
  modelId: z.string().optional(),
});
/** Payload of `model_anomaly_warning`. */
export type ModelAnomalyWarningPayload = z.infer<typeof ModelAnomalyWarningPayload>;

/** `network_request_status` (ours): one HTTP request to a provider. */
export const NetworkRequestStatusPayload = z.object({
  requestId: z.string(),
  status: z.enum(['started', 'completed', 'failed']),
  statusCode: z.number().int().optional(),
  durationMs: DurationMs.optional(),
  providerId: z.string().optional(),
});
/** Payload of `network_request_status`. */
export type NetworkRequestStatusPayload = z.infer<typeof NetworkRequestStatusPayload>;

/** One tool call whose input is being streamed (ours). */
export const StreamingToolLedgerEntry = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['input_streaming', 'input_complete', 'executing', 'done']),
  inputBytes: Count.optional(),
});
/** One tool call whose input is being streamed. */
export type StreamingToolLedgerEntry = z.infer<typeof StreamingToolLedgerEntry>;

/**
 * `streaming_tool_ledger_updated` (ours); transient (R3.3). The full current ledger: the
 * reducer replaces `streamingToolLedger` with `entries` (R16.3).
 */
export const StreamingToolLedgerUpdatedPayload = z.object({
  entries: z.array(StreamingToolLedgerEntry),
});
/** Payload of `streaming_tool_ledger_updated`. */
export type StreamingToolLedgerUpdatedPayload = z.infer<typeof StreamingToolLedgerUpdatedPayload>;

/**
 * `stream_recovery_anchor_created` (R16.2 gives `attemptId`; the rest is ours): a point
 * the stream can be resumed from; the reducer keeps the last one (R16.3).
 */
export const StreamRecoveryAnchorCreatedPayload = z.object({
  attemptId: z.string(),
  anchorId: z.string(),
  assistantMessageId: z.string().optional(),
  partId: z.string().optional(),
  /** Characters of output received up to the anchor. */
  offset: Count.optional(),
});
/** Payload of `stream_recovery_anchor_created`. */
export type StreamRecoveryAnchorCreatedPayload = z.infer<typeof StreamRecoveryAnchorCreatedPayload>;

/** `stream_recovery_started` (R16.2). */
export const StreamRecoveryStartedPayload = z.object({
  attemptId: z.string(),
  failureKind: z.string(),
  message: z.string(),
  retryNumber: Count,
  maxRetries: Count,
});
/** Payload of `stream_recovery_started`. */
export type StreamRecoveryStartedPayload = z.infer<typeof StreamRecoveryStartedPayload>;

/** `stream_recovery_anchor_selected` (R16.2 `attemptId`; `anchorId` is ours). */
export const StreamRecoveryAnchorSelectedPayload = z.object({
  attemptId: z.string(),
  anchorId: z.string(),
});
/** Payload of `stream_recovery_anchor_selected`. */
export type StreamRecoveryAnchorSelectedPayload = z.infer<
  typeof StreamRecoveryAnchorSelectedPayload
>;

/** `stream_recovery_tail_discarded` (R16.2 `attemptId`; the count is ours). */
export const StreamRecoveryTailDiscardedPayload = z.object({
  attemptId: z.string(),
  discardedChars: Count.optional(),
});
/** Payload of `stream_recovery_tail_discarded`. */
export type StreamRecoveryTailDiscardedPayload = z.infer<typeof StreamRecoveryTailDiscardedPayload>;

/** `stream_recovery_retry_started` (R16.2 `attemptId`; `retryNumber` is ours). */
export const StreamRecoveryRetryStartedPayload = z.object({
  attemptId: z.string(),
  retryNumber: Count.optional(),
});
/** Payload of `stream_recovery_retry_started`. */
export type StreamRecoveryRetryStartedPayload = z.infer<typeof StreamRecoveryRetryStartedPayload>;

/** `stream_recovery_blocked` (R16.2): recovery is unsafe, the failure stands. */
export const StreamRecoveryBlockedPayload = z.object({
  attemptId: z.string(),
  reason: z.enum(['running_side_effect', 'unknown_side_effect', 'non_retryable_failure']),
});
/** Payload of `stream_recovery_blocked`. */
export type StreamRecoveryBlockedPayload = z.infer<typeof StreamRecoveryBlockedPayload>;
