import type { ErrorPayload, ModelUsage, SyntheticSource } from '@agentwire/contracts';
import type { ModelMessage, ModelProvider } from '@agentwire/model';
import { BrokerUnavailableError } from './early-turn-end.ts';
import type { ToolCallContext, ToolDecision, TurnRef } from './feature.ts';
import { runModelStep } from './model-step.ts';
import type { PermissionBroker } from './permission-broker.ts';
import type { IdSource, RuntimeClock } from './ports.ts';
import type { RequestChain } from './request-chain.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { ToolDefinition, ToolOutput } from './tool-definition.ts';
import { runToolBatch } from './tool-executor.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** Everything a turn needs that outlives it. */
export interface TurnDeps {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly model: ModelProvider;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly permissions: PermissionBroker;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly cwd: string;
  readonly root: string;
  readonly permissionTimeoutMs: number;
  /** Model steps per turn before it ends as `error_max_turns`. */
  readonly maxSteps: number;
  /**
   * Called at each model step boundary (R14.3 `guide`): inlines the guided inputs waiting
   * for this turn into `history` and returns the last injected user message id, if any.
   */
  readonly atStepBoundary?: (turnId: string, traceId: string) => Promise<string | undefined>;
  /** The session's main-turn requests (docs/decisions/0161). */
  readonly requests?: RequestChain;
  /** How a tool call is let through (the session mode, docs/decisions/0223). */
  readonly decideTool?: (tool: ToolDefinition) => ToolDecision;
  /** The features' hooks around a call that runs (checkpoints, 0225). */
  readonly beforeTool?: (call: ToolCallContext) => Promise<void>;
  readonly afterTool?: (call: ToolCallContext, output: ToolOutput | undefined) => Promise<void>;
  /** The features' hook before `turn_complete` (checkpoints made durable, 0225). */
  readonly turnEnding?: (turn: TurnRef) => Promise<void>;
  /** The features' answer to a failed step: true sends it once more (0229). */
  readonly recoverModelError?: (error: ErrorPayload, turn: TurnRef) => Promise<boolean>;
  /** The model's configured context window (R7.4), reported on `model_complete`. */
  readonly contextWindow?: number | undefined;
}

/** One turn's input. */
export interface TurnSpec {
  readonly turnId: string;
  readonly traceId: string;
  readonly turnNumber: number;
  readonly input: string;
  readonly userMessageId: string;
  readonly inputId?: string | undefined;
  /** Set when a synthetic notice started the turn (R8.1, docs/decisions/0231). */
  readonly inputSource?: SyntheticSource | undefined;
  readonly signal: AbortSignal;
}

/** How a turn ended (the caller's `TurnResult`, R1.1). */
export interface TurnOutcome {
  readonly turnId: string;
  readonly status: 'complete' | 'cancelled' | 'error';
  readonly response: string;
  readonly error?: ErrorPayload;
}

function addUsage(total: Record<string, number>, usage: ModelUsage): void {
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === 'number') total[key] = (total[key] ?? 0) + value;
  }
}

/**
 * The agent loop of one turn (issue 6, item 3): `turn_started`, then model steps and tool
 * batches until the model stops, then `turn_complete` (or `turn_error` on a model error).
 * The user message is already persisted by the caller (flow 1). The history is the
 * session's conversation and grows as the turn runs.
 */
export async function runTurn(
  deps: TurnDeps,
  spec: TurnSpec,
  history: ModelMessage[],
): Promise<TurnOutcome> {
  const { emitter } = deps;
  const { turnId, traceId } = spec;
  const started = deps.clock.now();
  await emitter.emit('turn_started', turnId, traceId, {
    turnNumber: spec.turnNumber,
    input: spec.input,
    messageId: spec.userMessageId,
    ...(spec.inputId === undefined ? {} : { inputId: spec.inputId }),
    ...(spec.inputSource === undefined
      ? {}
      : { inputSource: spec.inputSource, inputVisibility: 'model-only' as const }),
  });
  const toolSpecs = [...deps.tools.values()].map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  const usage: Record<string, number> = {};
  let toolCallCount = 0;
  let response = '';
  let parentMessageId = spec.userMessageId;
  /** A failed step is sent again once at most (0229). */
  let retried = false;
  const finish = async (
    resultType: 'success' | 'cancelled' | 'error_max_turns',
  ): Promise<TurnOutcome> => {
    // Stopped by a broker outage past its bound: the caller seals it `turn_error` (issue 9).
    if (resultType === 'cancelled' && spec.signal.reason instanceof BrokerUnavailableError) {
      throw spec.signal.reason;
    }
    await deps.turnEnding?.({ turnId, traceId });
    await emitter.emit('turn_complete', turnId, traceId, {
      response,
      tokenCount: usage.totalTokens ?? 0,
      usage,
      toolCallCount,
      duration: deps.clock.now() - started,
      resultType,
      ...(spec.inputId === undefined ? {} : { inputId: spec.inputId }),
    });
    return { turnId, status: resultType === 'cancelled' ? 'cancelled' : 'complete', response };
  };
  const boundary = async (): Promise<boolean> => {
    if (deps.atStepBoundary === undefined || spec.signal.aborted) return false;
    const injected = await deps.atStepBoundary(turnId, traceId);
    if (injected !== undefined) parentMessageId = injected;
    return injected !== undefined;
  };
  for (let step = 0; step < deps.maxSteps; step += 1) {
    // Before every request, the first included: a followUp batch and guidance sent while
    // the turn prepared join it before the model is asked (docs/decisions/0236).
    await boundary();
    const result = await runModelStep(
      {
        emitter,
        writer: deps.writer,
        model: deps.model,
        toolSpecs,
        ids: deps.ids,
        now: () => deps.clock.now(),
        turnId,
        traceId,
        signal: spec.signal,
        parentMessageId,
        path: { cwd: deps.cwd, root: deps.root },
        mode: 'build',
        agent: 'build',
        ...(deps.requests === undefined ? {} : { requests: deps.requests }),
        ...(deps.contextWindow === undefined ? {} : { contextWindow: deps.contextWindow }),
      },
      history,
    );
    if (result.kind === 'cancelled') return finish('cancelled');
    if (result.kind === 'error' && !retried && deps.recoverModelError !== undefined) {
      retried = true;
      if (await deps.recoverModelError(result.error, { turnId, traceId })) {
        step -= 1;
        continue;
      }
    }
    if (result.kind === 'error') {
      await emitter.emit('turn_error', turnId, traceId, {
        error: result.error,
        turnPhase: 'model_stream',
        ...(spec.inputId === undefined ? {} : { inputId: spec.inputId }),
      });
      return { turnId, status: 'error', response, error: result.error };
    }
    addUsage(usage, result.usage);
    if (result.text !== '') response = result.text;
    parentMessageId = result.assistantMessageId;
    if (result.calls.length === 0) {
      // Guidance that arrived during the last step still belongs to this turn: one more step.
      if (step + 1 < deps.maxSteps && (await boundary())) continue;
      return finish('success');
    }
    toolCallCount += result.calls.length;
    const batch = await runToolBatch(
      { ...deps, turnId, traceId, signal: spec.signal },
      result.calls,
      result.assistantMessageId,
      history,
    );
    if (batch.cancelled) return finish('cancelled');
  }
  return finish('error_max_turns');
}
