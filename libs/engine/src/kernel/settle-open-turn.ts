import type { AssistantMessage, EarlyTurnEnd, ErrorPayload } from '@agentwire/contracts';
import type { OpenToolCall, OpenTurn } from './open-turn.ts';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { toolPartId } from './tool-executor.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** What settling a turn writes through, and what its closing message records (R7.4). */
export interface SettleDeps {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  /** The model named on the closing message when the turn's stream names none. */
  readonly model: { readonly providerId: string; readonly modelId: string };
  readonly cwd: string;
  readonly root: string;
  readonly logger: RuntimeLogger;
}

/** How a settled turn ends: the reason its requests get, the error of its calls and turn. */
export interface TurnEnding {
  readonly reason: EarlyTurnEnd;
  readonly error: ErrorPayload;
  readonly turnPhase: string;
  /**
   * `best_effort`: a failing write is logged and settling goes on (a turn whose loop failed
   * may have failed on the writer; its events must still go out). `required`: it throws.
   */
  readonly writes: 'required' | 'best_effort';
}

/**
 * Closes everything `open` left and seals it with `turn_error` (DESIGN.md flow 6, issue
 * 20), so no later event refers to it and every frontend can clear it: each open request
 * gets `permission_denied` (`reason`, with its request id), each open call its part written
 * `error` and a `tool_call_error`, the open batch its `tool_batch_complete`; then the turn
 * gets an assistant message carrying the error (hidden from the model, so that hydration
 * seals the turn as the stream did, docs/decisions/0122) and `turn_error`. Runs on the
 * emitter of whoever settles: numbering continues.
 */
export async function settleOpenTurn(
  deps: SettleDeps,
  open: OpenTurn,
  ending: TurnEnding,
): Promise<void> {
  const { emitter } = deps;
  const { turnId, traceId } = open;
  for (const p of open.permissions) {
    await emitter.emit('permission_denied', turnId, traceId, {
      toolCallId: p.toolCallId,
      toolName: p.toolName,
      reason: ending.reason,
      ...(p.requestId === undefined ? {} : { requestId: p.requestId }),
    });
  }
  for (const call of open.toolCalls) await failCall(deps, open, call, ending);
  if (open.batch !== undefined) {
    await emitter.emit('tool_batch_complete', turnId, traceId, {
      toolCallIds: [...open.batch.toolCallIds],
      successCount: open.batch.successCount,
      errorCount: open.batch.errorCount + open.toolCalls.length,
    });
  }
  await write(deps, ending, () =>
    deps.writer.saveAssistantMessage(closingMessage(deps, open, ending.error), {
      sequence: emitter.appender.latestSequence,
      traceId,
    }),
  );
  await emitter.emit('turn_error', turnId, traceId, {
    error: ending.error,
    turnPhase: ending.turnPhase,
    ...(open.inputId === undefined ? {} : { inputId: open.inputId }),
  });
}

/** Writes the call's part as `error` (R7.5) and emits its `tool_call_error`. */
async function failCall(
  deps: SettleDeps,
  open: OpenTurn,
  call: OpenToolCall,
  ending: TurnEnding,
): Promise<void> {
  const { emitter } = deps;
  const { error } = ending;
  const messageId = call.assistantMessageId;
  if (messageId !== undefined) {
    const now = deps.clock.now();
    await write(deps, ending, () =>
      deps.writer.savePart(
        {
          id: toolPartId(messageId, call.toolCallId),
          sessionId: emitter.sessionId,
          messageId,
          type: 'tool',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          state: {
            status: 'error',
            input: call.input,
            error: `${error.code ?? error.type}: ${error.message}`,
            time: { start: call.startedAt ?? now, end: now },
          },
        },
        { sequence: emitter.appender.latestSequence, traceId: open.traceId },
      ),
    );
  }
  await emitter.emit('tool_call_error', open.turnId, open.traceId, {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    error,
  });
}

async function write(deps: SettleDeps, ending: TurnEnding, run: () => Promise<void>) {
  if (ending.writes === 'required') return run();
  try {
    await run();
  } catch (err) {
    deps.logger.warn(
      { err, sessionId: deps.emitter.sessionId },
      'a write settling the turn failed; its events still go out',
    );
  }
}

/** The assistant message that records how the turn ended (R7.4, R7.8). */
function closingMessage(deps: SettleDeps, open: OpenTurn, error: ErrorPayload): AssistantMessage {
  const now = deps.clock.now();
  const model = open.model ?? deps.model;
  return {
    id: deps.ids.newId('msg'),
    sessionId: deps.emitter.sessionId,
    role: 'assistant',
    time: { created: now, completed: now },
    error,
    parentId: open.lastMessageId ?? '',
    providerId: model.providerId,
    modelId: model.modelId,
    mode: 'build',
    agent: 'build',
    path: { cwd: deps.cwd, root: deps.root },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    semantics: {
      origin: 'agent_runtime',
      kind: 'assistant_response',
      uiVisibility: 'visible',
      providerVisibility: 'hidden',
      transcriptVisibility: 'visible',
    },
    anchor: { turnId: open.turnId },
  };
}
