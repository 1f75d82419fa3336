/**
 * The model-provider port (DESIGN.md "Libraries": `model`). The runtime drives the agent
 * loop itself: one call of {@link ModelProvider.stream} is one model step (R7.4), and tool
 * calls come back as parts for the runtime to schedule, ask permission for and run.
 */

/** A tool call the model declared, as carried in the conversation. */
export interface ModelToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/**
 * One conversation message sent to the model; the shape of `model_request.messages`
 * (R16.2): role, text content, tool calls on assistant messages, the call id on tool
 * results.
 */
export interface ModelMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly toolCalls?: readonly ModelToolCall[];
  /** Set on `tool` messages: the call this result answers. */
  readonly toolCallId?: string;
  /** Set on `tool` messages: the tool that produced the result. */
  readonly toolName?: string;
  /** Set on `tool` messages: whether the tool failed. */
  readonly isError?: boolean;
  /** Set on a compaction's summary (a `user` message of the runtime's own, not a prompt). */
  readonly summary?: true;
}

/** A tool offered to the model, with a JSON Schema of its input. */
export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/**
 * How much a reasoning model should think before answering. `lowest` is the least the
 * provider accepts while still answering (title requests ask for it, R9.6).
 */
export type ModelReasoningEffort = 'lowest' | 'low' | 'medium' | 'high';

/** One model step's request. */
export interface ModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ModelToolSpec[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Absent: the provider's default effort. */
  readonly reasoningEffort?: ModelReasoningEffort;
  /**
   * What the request is for (R16.1 `querySource`: `main_turn`, `compact`,
   * `target_completion_verification`, ...); absent is a main turn. Providers may label or
   * route by it; the scripted one answers verifications from its scenario's verdicts.
   */
  readonly querySource?: string;
}

/** Token usage in the shape of R16.1 (input tokens include cache reads and writes). */
export interface ModelUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
}

/** Why a step ended. `tool-calls` asks the runtime to run tools and call again. */
export type ModelFinishReason =
  | 'stop'
  | 'tool-calls'
  | 'length'
  | 'content-filter'
  | 'error'
  | 'other';

/** A provider failure, classified once at the boundary (STYLE.md "Outcomes and errors"). */
export interface ModelFailure {
  readonly message: string;
  readonly code: string;
  readonly retryable: boolean;
  readonly statusCode?: number;
}

/** What a model step streams, in order; exactly one `finish` or `error` ends it. */
export type ModelStreamPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | ({ readonly type: 'tool-call' } & ModelToolCall)
  | {
      readonly type: 'finish';
      readonly finishReason: ModelFinishReason;
      readonly usage: ModelUsage;
    }
  | { readonly type: 'error'; readonly error: ModelFailure };

/** A model provider: one streamed step per call. */
export interface ModelProvider {
  /** Provider id recorded on assistant messages (R7.4). */
  readonly providerId: string;
  /** Model id recorded on assistant messages (R7.4). */
  readonly modelId: string;
  /**
   * Streams one model step. Never throws for provider failures: they arrive as an `error`
   * part. An aborted `signal` ends the stream early without a `finish` part.
   */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamPart>;
}
