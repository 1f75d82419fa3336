import {
  type ErrorPayload,
  type JsonValue,
  normalizeToolName,
  TOOL_COMPLETION_SCHEMA_VERSION,
  type ToolCompletionMetadata,
  type ToolPart,
  type ToolState,
} from '@agentwire/contracts';
import type { ModelMessage, ModelToolCall } from '@agentwire/model';
import { INTERRUPTED } from './early-turn-end.ts';
import type { ToolCallContext, ToolDecision } from './feature.ts';
import type { PermissionBroker } from './permission-broker.ts';
import type { IdSource, RuntimeClock } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { type ToolDefinition, ToolError, type ToolOutput } from './tool-definition.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** The part id of a tool call: derivable from its scheduled event, so recovery can find it. */
export function toolPartId(assistantMessageId: string, toolCallId: string): string {
  return `${assistantMessageId}.${toolCallId}`;
}

/** What a tool batch needs from its turn. */
export interface ToolBatchContext {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly permissions: PermissionBroker;
  readonly permissionTimeoutMs: number;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly turnId: string;
  readonly traceId: string;
  readonly signal: AbortSignal;
  /** How a call is let through (the session mode, 0223); absent: the tool's own flag. */
  readonly decideTool?: (tool: ToolDefinition) => ToolDecision;
  /** The features' hooks around a call that runs (checkpoints, 0225). */
  readonly beforeTool?: (call: ToolCallContext) => Promise<void>;
  /** `output` is what the tool returned; undefined when it did not end normally. */
  readonly afterTool?: (call: ToolCallContext, output: ToolOutput | undefined) => Promise<void>;
}

interface PreparedCall {
  readonly call: ModelToolCall;
  readonly name: string;
  readonly partId: string;
  readonly messageId: string;
  readonly input: JsonValue;
  readonly originalToolName?: string;
}

/** Result of a batch: the tool messages it added to the history, and counts. */
export interface ToolBatchResult {
  readonly messages: ModelMessage[];
  readonly successCount: number;
  readonly errorCount: number;
  readonly cancelled: boolean;
}

/**
 * Runs one step's tool calls (R7.5): every call is declared (`tool_call_scheduled`, part
 * `pending`), then run in order, asking first where the tool needs it (R1.4), each ending
 * as `tool_call_result` (part `completed`) or `tool_call_error` (part `error`); finally
 * `tool_batch_complete`. An interrupted batch closes its remaining calls as errors and
 * denies its waiting request (`permission_denied` `interrupted`, issue 20). The event of a
 * declared call goes out before its `pending` part: a crash in between leaves a call the
 * stream shows open, which reconciliation closes, never a part no event names.
 */
export async function runToolBatch(
  ctx: ToolBatchContext,
  calls: readonly ModelToolCall[],
  assistantMessageId: string,
  history: ModelMessage[],
): Promise<ToolBatchResult> {
  const prepared = calls.map((call): PreparedCall => {
    const { toolName, originalToolName } = normalizeToolName(call.toolName);
    return {
      call,
      name: toolName,
      partId: toolPartId(assistantMessageId, call.toolCallId),
      messageId: assistantMessageId,
      input: (call.input ?? null) as JsonValue,
      ...(originalToolName === undefined ? {} : { originalToolName }),
    };
  });
  const order = prepared.map((p) => p.call.toolCallId);
  for (const p of prepared) {
    await ctx.emitter.emit('tool_call_scheduled', ctx.turnId, ctx.traceId, {
      toolCallId: p.call.toolCallId,
      toolName: p.name,
      input: p.input,
      assistantMessageId,
      schedule: { parallelGroups: order.map((id) => [id]), executionOrder: order },
    });
    await writePart(ctx, p, { status: 'pending', input: p.input });
  }
  const messages: ModelMessage[] = [];
  let successCount = 0;
  let errorCount = 0;
  for (const p of prepared) {
    const outcome = ctx.signal.aborted ? await failCall(ctx, p, INTERRUPTED) : await runOne(ctx, p);
    if (outcome.ok) successCount += 1;
    else errorCount += 1;
    const message: ModelMessage = {
      role: 'tool',
      content: outcome.content,
      toolCallId: p.call.toolCallId,
      toolName: p.name,
      isError: !outcome.ok,
    };
    messages.push(message);
    // Each answer joins the history as its call ends: a batch cut short by a failing
    // append leaves only the unanswered calls to close (docs/decisions/0160).
    history.push(message);
  }
  await ctx.emitter.emit('tool_batch_complete', ctx.turnId, ctx.traceId, {
    toolCallIds: order,
    successCount,
    errorCount,
  });
  return { messages, successCount, errorCount, cancelled: ctx.signal.aborted };
}

type CallOutcome = { readonly ok: boolean; readonly content: string };

async function runOne(ctx: ToolBatchContext, p: PreparedCall): Promise<CallOutcome> {
  const tool = ctx.tools.get(p.name);
  if (tool === undefined) {
    return failCall(ctx, p, {
      type: 'tool_error',
      message: `unknown tool ${JSON.stringify(p.name)}`,
      code: 'unknown_tool',
    });
  }
  const decision = ctx.decideTool?.(tool) ?? { kind: tool.needsPermission ? 'ask' : 'run' };
  if (decision.kind === 'deny') {
    return failCall(ctx, p, {
      type: 'permission_denied',
      message: `not allowed: ${decision.reason}`,
      code: 'not_allowed_in_mode',
    });
  }
  if (decision.kind === 'ask') {
    const denial = await askPermission(ctx, p, tool);
    if (denial !== undefined) return failCall(ctx, p, denial);
  }
  const call: ToolCallContext = {
    tool,
    input: p.call.input,
    toolCallId: p.call.toolCallId,
    messageId: p.messageId,
    turnId: ctx.turnId,
    traceId: ctx.traceId,
  };
  try {
    await ctx.beforeTool?.(call);
  } catch (err) {
    return failCall(ctx, p, {
      type: 'tool_error',
      message: `the workspace could not be checkpointed first: ${err instanceof Error ? err.message : String(err)}`,
      code: 'checkpoint_failed',
    });
  }
  const ran: { output?: ToolOutput } = {};
  try {
    return await runStarted(ctx, p, tool, ran);
  } finally {
    await ctx.afterTool?.(call, ran.output);
  }
}

async function runStarted(
  ctx: ToolBatchContext,
  p: PreparedCall,
  tool: ToolDefinition,
  ran: { output?: ToolOutput },
): Promise<CallOutcome> {
  const startedAt = ctx.clock.now();
  await writePart(ctx, p, {
    status: 'running',
    input: p.input,
    time: { start: startedAt },
  });
  await ctx.emitter.emit('tool_call_started', ctx.turnId, ctx.traceId, {
    toolCallId: p.call.toolCallId,
    toolName: p.name,
    startedAt,
    readOnly: tool.readOnly,
  });
  let output: ToolOutput;
  try {
    output = await tool.run(p.call.input, ctx.signal);
  } catch (err) {
    // A tool stopped by the interrupt failed because of it, whatever it threw.
    if (ctx.signal.aborted) return failCall(ctx, p, INTERRUPTED, startedAt);
    const code = err instanceof ToolError ? err.code : 'tool_failed';
    const message = err instanceof Error ? err.message : String(err);
    return failCall(ctx, p, { type: 'tool_error', message, code }, startedAt);
  }
  ran.output = output;
  const end = ctx.clock.now();
  await writePart(ctx, p, {
    status: 'completed',
    input: p.input,
    output: output.content,
    metadata: completionMetadata(p, output, end),
    time: { start: startedAt, end },
  });
  await ctx.emitter.emit('tool_call_result', ctx.turnId, ctx.traceId, {
    toolCallId: p.call.toolCallId,
    toolName: p.name,
    result: {
      success: true,
      content: output.content,
      truncated: output.truncated,
      originalBytes: output.originalBytes,
      returnedBytes: output.returnedBytes,
    },
    duration: end - startedAt,
  });
  return { ok: true, content: output.content };
}

/** R7.5 completion metadata: schema version, display payload, serialisation facts, files read. */
function completionMetadata(
  p: PreparedCall,
  output: ToolOutput,
  readAt: number,
): ToolCompletionMetadata {
  return {
    schemaVersion: TOOL_COMPLETION_SCHEMA_VERSION,
    display: { title: p.name, summary: output.content.slice(0, 200) },
    serialization: {
      truncated: output.truncated,
      rawBytes: output.originalBytes,
      returnedBytes: output.returnedBytes,
    },
    filesRead: (output.filesRead ?? []).map((path) => ({ path, readAt })),
  };
}

async function askPermission(
  ctx: ToolBatchContext,
  p: PreparedCall,
  tool: ToolDefinition,
): Promise<ErrorPayload | undefined> {
  const requestId = ctx.ids.newId('perm');
  const toolCallId = p.call.toolCallId;
  // Wait first, then ask: an answer may arrive before the emit resolves.
  const answered = ctx.permissions.request(
    requestId,
    toolCallId,
    ctx.permissionTimeoutMs,
    ctx.signal,
  );
  await ctx.emitter.emit('permission_requested', ctx.turnId, ctx.traceId, {
    toolCallId,
    toolName: p.name,
    riskLevel: tool.riskLevel,
    reason: tool.askReason?.(p.input) ?? `${p.name} changes the workspace`,
    input: p.input,
    requestId,
  });
  const outcome = await answered;
  if (outcome.kind === 'answered' && outcome.answer.decision === 'allow') {
    await ctx.emitter.emit('permission_resolved', ctx.turnId, ctx.traceId, {
      toolCallId,
      decision: 'allow',
      requestId,
      ...(outcome.answer.reason === undefined ? {} : { reason: outcome.answer.reason }),
    });
    return undefined;
  }
  const reason =
    outcome.kind === 'aborted'
      ? 'interrupted'
      : outcome.kind === 'timeout'
        ? 'no answer before the timeout'
        : (outcome.answer.reason ?? `decision ${outcome.answer.decision}`);
  await ctx.emitter.emit('permission_denied', ctx.turnId, ctx.traceId, {
    toolCallId,
    toolName: p.name,
    reason,
    requestId,
  });
  if (outcome.kind === 'aborted') return INTERRUPTED;
  return {
    type: 'permission_denied',
    message: `permission denied: ${reason}`,
    code: outcome.kind === 'timeout' ? 'permission_timeout' : 'permission_denied',
  };
}

async function failCall(
  ctx: ToolBatchContext,
  p: PreparedCall,
  error: ErrorPayload,
  start?: number,
): Promise<CallOutcome> {
  const end = ctx.clock.now();
  await writePart(ctx, p, {
    status: 'error',
    input: p.input,
    error: error.code === undefined ? error.message : `${error.code}: ${error.message}`,
    time: { start: start ?? end, end },
  });
  await ctx.emitter.emit('tool_call_error', ctx.turnId, ctx.traceId, {
    toolCallId: p.call.toolCallId,
    toolName: p.name,
    error: { ...error, attribution: { source: 'tool' } },
  });
  return { ok: false, content: error.message };
}

function writePart(ctx: ToolBatchContext, p: PreparedCall, state: ToolState): Promise<void> {
  const part: ToolPart = {
    id: p.partId,
    sessionId: ctx.emitter.sessionId,
    messageId: p.messageId,
    type: 'tool',
    toolCallId: p.call.toolCallId,
    toolName: p.name,
    state,
    ...(p.originalToolName === undefined
      ? {}
      : { metadata: { originalToolName: p.originalToolName } }),
  };
  return ctx.writer.savePart(part, {
    sequence: ctx.emitter.appender.latestSequence,
    traceId: ctx.traceId,
  });
}
