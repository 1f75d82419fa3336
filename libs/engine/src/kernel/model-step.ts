import type {
  AssistantMessage,
  ErrorPayload,
  MessageTokens,
  ModelStreamingPayload,
  ModelUsage,
} from '@agentwire/contracts';
import type { ModelMessage, ModelProvider, ModelToolCall, ModelToolSpec } from '@agentwire/model';
import { INTERRUPTED } from './early-turn-end.ts';
import type { IdSource } from './ports.ts';
import { RequestChain } from './request-chain.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** One streamed chunk of the step's assistant message (`model_streaming`, R16.2). */
type StreamingFields = Omit<ModelStreamingPayload, 'assistantMessageId' | 'done'>;

/** What a model step needs from its turn. */
export interface ModelStepContext {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly model: ModelProvider;
  readonly toolSpecs: readonly ModelToolSpec[];
  readonly ids: IdSource;
  readonly now: () => number;
  readonly turnId: string;
  readonly traceId: string;
  readonly signal: AbortSignal;
  readonly parentMessageId: string;
  readonly path: { readonly cwd: string; readonly root: string };
  readonly mode: string;
  readonly agent: string;
  /** The model's configured context window, reported on `model_complete`. */
  readonly contextWindow?: number;
  /** The session's main-turn requests: each step's `model_request` carries only what is new. */
  readonly requests?: RequestChain;
}

/** Outcome of one model step. */
export type ModelStepResult =
  | {
      readonly kind: 'ok';
      readonly assistantMessageId: string;
      readonly text: string;
      readonly calls: readonly ModelToolCall[];
      readonly usage: ModelUsage;
    }
  | { readonly kind: 'error'; readonly error: ErrorPayload }
  | { readonly kind: 'cancelled' };

function tokensOf(usage: ModelUsage): MessageTokens {
  return {
    input: usage.inputTokens ?? 0,
    output: usage.outputTokens ?? 0,
    reasoning: usage.reasoningTokens ?? 0,
    cache: { read: usage.cacheReadTokens ?? 0, write: usage.cacheWriteTokens ?? 0 },
  };
}

/**
 * One model step (R7.4): `model_request` (what is new since the session's previous request,
 * with that one as its base: docs/decisions/0161), `model_streaming` per delta (transient, R3.3),
 * then the assistant message with its text and reasoning parts, then `model_complete`
 * (`querySource: "main_turn"`, usage) or `model_error`. The history gains the assistant
 * message on success. An interrupted step still saves its message, with what it streamed
 * and the `interrupted` error, hidden from the model as it is from the live history
 * (docs/decisions/0122): the transcript says where the turn stopped.
 */
export async function runModelStep(
  ctx: ModelStepContext,
  history: ModelMessage[],
): Promise<ModelStepResult> {
  const { emitter, turnId, traceId, model } = ctx;
  const assistantMessageId = ctx.ids.newId('msg');
  const textPartId = ctx.ids.newId('prt');
  const reasoningPartId = ctx.ids.newId('prt');
  const created = ctx.now();
  const request = (ctx.requests ?? new RequestChain()).next(history);
  const stored = await emitter.emit('model_request', turnId, traceId, {
    ...request.fields,
    providerId: model.providerId,
    modelId: model.modelId,
    querySource: 'main_turn',
    toolCount: ctx.toolSpecs.length,
  });
  request.commit(stored);
  const {
    text,
    reasoning,
    calls,
    finish,
    failure: streamed,
  } = await consumeStream(ctx, history, {
    assistantMessageId,
    textPartId,
    reasoningPartId,
  });
  const output = { assistantMessageId, created, text, textPartId, reasoning, reasoningPartId };
  let failure = streamed;
  if (ctx.signal.aborted) {
    await saveAssistant(ctx, { ...output, usage: {}, finish: undefined, failure: INTERRUPTED });
    return { kind: 'cancelled' };
  }
  if (failure === undefined && finish === undefined) {
    failure = {
      type: 'provider_error',
      message: 'the model stream ended without a finish',
      code: 'stream_incomplete',
    };
  }
  await emitter.emit('model_streaming', turnId, traceId, {
    assistantMessageId,
    delta: '',
    done: true,
    kind: failure === undefined ? 'finish' : 'error',
  });
  const usage = finish?.usage ?? {};
  await saveAssistant(ctx, { ...output, usage, finish, failure });
  if (failure !== undefined) {
    await emitter.emit('model_error', turnId, traceId, {
      error: failure,
      retryable: failure.retryable ?? false,
      querySource: 'main_turn',
      providerId: model.providerId,
      modelId: model.modelId,
    });
    return { kind: 'error', error: failure };
  }
  await emitter.emit('model_complete', turnId, traceId, {
    content: text,
    stopReason: finish?.finishReason ?? 'other',
    usage,
    querySource: 'main_turn',
    toolCallCount: calls.length,
    ...(ctx.contextWindow === undefined ? {} : { contextWindow: ctx.contextWindow }),
    providerId: model.providerId,
    modelId: model.modelId,
  });
  history.push({
    role: 'assistant',
    content: text,
    ...(calls.length === 0 ? {} : { toolCalls: calls }),
  });
  return { kind: 'ok', assistantMessageId, text, calls, usage };
}

interface StepIds {
  readonly assistantMessageId: string;
  readonly textPartId: string;
  readonly reasoningPartId: string;
}

interface StreamedStep {
  readonly text: string;
  readonly reasoning: string;
  readonly calls: ModelToolCall[];
  readonly finish: { finishReason: string; usage: ModelUsage } | undefined;
  readonly failure: ErrorPayload | undefined;
}

/** Streams one step, emitting a transient `model_streaming` per delta and tool call (R3.3). */
async function consumeStream(
  ctx: ModelStepContext,
  history: ModelMessage[],
  ids: StepIds,
): Promise<StreamedStep> {
  let text = '';
  let reasoning = '';
  const calls: ModelToolCall[] = [];
  let finish: { finishReason: string; usage: ModelUsage } | undefined;
  let failure: ErrorPayload | undefined;
  const { emitter, turnId, traceId, model } = ctx;
  const { assistantMessageId, textPartId, reasoningPartId } = ids;
  const streaming = (fields: StreamingFields) =>
    emitter.emit('model_streaming', turnId, traceId, {
      assistantMessageId,
      done: false,
      ...fields,
    });
  for await (const part of model.stream({ messages: history, tools: ctx.toolSpecs }, ctx.signal)) {
    if (part.type === 'text-delta') {
      text += part.text;
      await streaming({ delta: part.text, kind: 'text_delta', partId: textPartId });
    } else if (part.type === 'reasoning-delta') {
      reasoning += part.text;
      await streaming({ delta: part.text, kind: 'reasoning_delta', partId: reasoningPartId });
    } else if (part.type === 'tool-call') {
      calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      await streaming({
        delta: '',
        kind: 'tool_call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
      });
    } else if (part.type === 'finish') {
      finish = { finishReason: part.finishReason, usage: part.usage };
    } else {
      failure = {
        type: 'provider_error',
        message: part.error.message,
        code: part.error.code,
        retryable: part.error.retryable,
        attribution: {
          source: 'provider',
          providerId: model.providerId,
          modelId: model.modelId,
          retryable: part.error.retryable,
          ...(part.error.statusCode === undefined ? {} : { statusCode: part.error.statusCode }),
        },
      };
    }
  }
  return { text, reasoning, calls, finish, failure };
}

interface StepOutput {
  readonly assistantMessageId: string;
  readonly created: number;
  readonly text: string;
  readonly textPartId: string;
  readonly reasoning: string;
  readonly reasoningPartId: string;
  readonly usage: ModelUsage;
  readonly finish: { finishReason: string } | undefined;
  readonly failure: ErrorPayload | undefined;
}

async function saveAssistant(ctx: ModelStepContext, out: StepOutput): Promise<void> {
  const write = { sequence: ctx.emitter.appender.latestSequence, traceId: ctx.traceId };
  const completed = ctx.now();
  const message: AssistantMessage = {
    id: out.assistantMessageId,
    sessionId: ctx.emitter.sessionId,
    role: 'assistant',
    time: { created: out.created, completed },
    ...(out.failure === undefined ? {} : { error: out.failure }),
    parentId: ctx.parentMessageId,
    providerId: ctx.model.providerId,
    modelId: ctx.model.modelId,
    mode: ctx.mode,
    agent: ctx.agent,
    path: ctx.path,
    cost: 0,
    tokens: tokensOf(out.usage),
    ...(out.finish === undefined ? {} : { finish: out.finish.finishReason }),
    semantics: {
      origin: 'agent_runtime',
      kind: 'assistant_response',
      uiVisibility: 'visible',
      // A failed or interrupted step never joins the live history: the transcript hides it
      // from the model too, so a cold open rebuilds the same conversation (0122, 0229).
      providerVisibility: out.failure === undefined ? 'visible' : 'hidden',
      transcriptVisibility: 'visible',
    },
    anchor: { turnId: ctx.turnId },
  };
  await ctx.writer.saveAssistantMessage(message, write);
  const sid = ctx.emitter.sessionId;
  if (out.reasoning !== '') {
    await ctx.writer.savePart(
      {
        id: out.reasoningPartId,
        sessionId: sid,
        messageId: out.assistantMessageId,
        type: 'reasoning',
        text: out.reasoning,
        time: { start: out.created, end: completed },
      },
      write,
    );
  }
  if (out.text !== '') {
    await ctx.writer.savePart(
      {
        id: out.textPartId,
        sessionId: sid,
        messageId: out.assistantMessageId,
        type: 'text',
        text: out.text,
      },
      write,
    );
  }
}
