import {
  type AssistantMessage,
  EarlyTurnEnd,
  type EventPayload,
  type EventType,
  type Message,
  type ModelUsage,
  type Part,
  type SessionEvent,
  type SessionProjection,
  type TitleSource,
  type ToolPart,
  type UserMessage,
} from '@agentwire/contracts';

/** One persisted message with its parts, as cold recovery reads it back (R1.3, R7). */
export interface TranscriptEntry {
  readonly message: Message;
  readonly parts: readonly Part[];
}

/**
 * Options of {@link hydrateTranscript}.
 */
export interface HydrationOptions {
  /** Trace id stamped on every event (a W3C trace id; cold recovery passes its own). */
  readonly traceId: string;
  /**
   * The session's row, when known: the replay then opens with `session_created`
   * (`recovered: true`, R4.3) and, for a titled session, `session_title_updated` with the
   * row's title and source.
   */
  readonly session?: {
    readonly createdAt: number;
    readonly title: string | null;
    readonly titleSource: TitleSource | null;
  };
}

const TOKEN = /[^A-Za-z0-9_-]/g;

/** Turn id of a user message: its anchor's (R7.8), else one derived from the message id. */
function turnIdOf(message: UserMessage): string {
  return message.anchor?.turnId ?? `turn-${message.id.replace(TOKEN, '_')}`;
}

function textOf(parts: readonly Part[]): string {
  return parts.flatMap((p) => (p.type === 'text' && p.synthetic !== true ? [p.text] : [])).join('');
}

/** Model usage of an assistant message (R16.1: input already includes cache tokens). */
function usageOf(message: AssistantMessage): ModelUsage {
  const t = message.tokens;
  return {
    inputTokens: t.input,
    outputTokens: t.output,
    reasoningTokens: t.reasoning,
    cacheReadTokens: t.cache.read,
    cacheWriteTokens: t.cache.write,
  };
}

interface OpenTurn {
  readonly turnId: string;
  readonly user: UserMessage;
  tokens: number;
  toolCalls: number;
  last: { message: AssistantMessage; parts: readonly Part[] } | undefined;
  openTools: number;
}

/**
 * Turns a session's persisted transcript back into the equivalent event sequence (R10.4),
 * numbered from 1, so that cold recovery can feed it to the same reducer:
 * `reduce(hydrate(transcript))` equals the live projection in every field the transcript
 * determines ({@link transcriptView}). Per turn: `turn_started` for the user message that
 * opens it (guide injections sharing its anchor's turn id open none), per assistant message
 * `model_complete` then each tool part as `tool_call_scheduled`, `tool_call_started`,
 * `tool_call_result` or `tool_call_error` and `tool_batch_complete` once all are settled.
 * The turn's last message seals it: `turn_complete` `cancelled` when it carries the
 * `interrupted` error (the step an interrupt stopped), `turn_error` for any other error (a
 * failed step, or the closing message a runtime writes when it settles a failed or lost
 * turn, docs/decisions/0122), `turn_complete` when it completed with no unsettled tool. An
 * unsealed last turn stays open, as it was live. Pure.
 */
export function hydrateTranscript(
  sessionId: string,
  transcript: readonly TranscriptEntry[],
  options: HydrationOptions,
): SessionEvent[] {
  const events: SessionEvent[] = [];
  const emit = <T extends EventType>(
    type: T,
    turnId: string | null,
    at: number,
    payload: EventPayload<T>,
  ) => {
    const sequenceNumber = events.length + 1;
    events.push({
      id: `hyd-${sessionId}-${sequenceNumber}`,
      sessionId,
      turnId,
      type,
      timestamp: at,
      traceId: options.traceId,
      sequenceNumber,
      payload,
    } as SessionEvent);
  };
  let turn: OpenTurn | undefined;
  let turnNumber = 0;
  const ordered = [...transcript].sort((a, b) => a.message.time.created - b.message.time.created);
  const row = options.session;
  if (row !== undefined) {
    emit('session_created', null, row.createdAt, {
      recovered: true,
      ...(row.title === null ? {} : { title: row.title }),
    });
    if (row.title !== null) {
      emit('session_title_updated', null, row.createdAt, {
        title: row.title,
        previousTitle: null,
        source: row.titleSource ?? 'default',
      });
    }
  }
  for (const { message, parts } of ordered) {
    // The runtime's own user-role messages (a compaction summary, a notice) open no turn.
    if (message.role === 'user' && message.synthetic === true) continue;
    if (message.role === 'user') {
      if (turn !== undefined && turnIdOf(message) === turn.turnId) continue;
      if (turn !== undefined) seal(turn, emit);
      turnNumber += 1;
      turn = {
        turnId: turnIdOf(message),
        user: message,
        tokens: 0,
        toolCalls: 0,
        last: undefined,
        openTools: 0,
      };
      emit('turn_started', turn.turnId, message.time.created, {
        turnNumber,
        input: textOf(parts),
        messageId: message.id,
      });
      continue;
    }
    if (turn === undefined) continue;
    hydrateAssistant(turn, message, parts, emit);
  }
  if (turn !== undefined) seal(turn, emit);
  return events;
}

type Emit = <T extends EventType>(
  type: T,
  turnId: string | null,
  at: number,
  payload: EventPayload<T>,
) => void;

function hydrateAssistant(
  turn: OpenTurn,
  message: AssistantMessage,
  parts: readonly Part[],
  emit: Emit,
): void {
  const at = message.time.completed ?? message.time.created;
  turn.last = { message, parts };
  const tools = parts.filter((p): p is ToolPart => p.type === 'tool');
  if (message.error === undefined && message.time.completed !== undefined) {
    const usage = usageOf(message);
    turn.tokens += (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    emit('model_complete', turn.turnId, at, {
      content: textOf(parts),
      stopReason: message.finish ?? 'other',
      usage,
      querySource: 'main_turn',
      toolCallCount: tools.length,
    });
  }
  if (tools.length === 0) return;
  turn.toolCalls += tools.length;
  const ids = tools.map((t) => t.toolCallId);
  let success = 0;
  let failed = 0;
  for (const tool of tools) {
    const { state } = tool;
    emit('tool_call_scheduled', turn.turnId, at, {
      toolCallId: tool.toolCallId,
      toolName: tool.toolName,
      input: state.input,
      assistantMessageId: message.id,
      schedule: { parallelGroups: [ids], executionOrder: ids },
    });
    if (state.status === 'pending') continue;
    emit('tool_call_started', turn.turnId, state.time.start, {
      toolCallId: tool.toolCallId,
      toolName: tool.toolName,
      startedAt: state.time.start,
    });
    if (state.status === 'completed') {
      success += 1;
      emit('tool_call_result', turn.turnId, state.time.end, {
        toolCallId: tool.toolCallId,
        toolName: tool.toolName,
        result: {
          success: true,
          content: state.output,
          truncated: state.metadata.serialization.truncated,
        },
        duration: state.time.end - state.time.start,
      });
    } else if (state.status === 'error') {
      failed += 1;
      emit('tool_call_error', turn.turnId, state.time.end ?? state.time.start, {
        toolCallId: tool.toolCallId,
        toolName: tool.toolName,
        error: { type: 'tool_error', message: state.error },
      });
    }
  }
  if (success + failed === tools.length) {
    emit('tool_batch_complete', turn.turnId, at, {
      toolCallIds: ids,
      successCount: success,
      errorCount: failed,
    });
  } else {
    turn.openTools += tools.length - success - failed;
  }
}

function seal(turn: OpenTurn, emit: Emit): void {
  const last = turn.last;
  if (last === undefined || turn.openTools > 0) return;
  const { message, parts } = last;
  const at = message.time.completed ?? message.time.created;
  const interrupted = message.error?.code === EarlyTurnEnd.enum.interrupted;
  if (message.error !== undefined && !interrupted) {
    emit('turn_error', turn.turnId, at, { error: message.error, turnPhase: 'model_stream' });
    return;
  }
  if (message.time.completed === undefined) return;
  emit('turn_complete', turn.turnId, at, {
    response: textOf(parts),
    tokenCount: turn.tokens,
    toolCallCount: turn.toolCalls,
    duration: Math.max(0, at - turn.user.time.created),
    resultType: interrupted ? 'cancelled' : 'success',
  });
}

/**
 * The projection fields a transcript determines (R10.4): what {@link hydrateTranscript}
 * must reproduce. Queued inputs, permissions, background tasks, targets, checkpoints and
 * compactions live in the ledger and session entries, not in messages; timestamps and
 * sequence numbers are the replay's own.
 */
export function transcriptView(p: SessionProjection) {
  return {
    status: p.status,
    turnCount: p.turnCount,
    totalTokenCount: p.totalTokenCount,
    contextUsed: p.contextUsed,
    currentTurnId: p.currentTurnId,
    activeToolCalls: p.activeToolCalls.map(({ toolCallId, toolName, status }) => ({
      toolCallId,
      toolName,
      status,
    })),
    lastError:
      p.lastError === null ? null : { error: p.lastError.error, turnId: p.lastError.turnId },
  };
}
