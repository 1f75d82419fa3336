import type { ActiveToolCall, ActiveToolCallStatus } from '@agentwire/contracts';
import type { ProjectionHandlers } from './handler-table.ts';

/** Applies `change` to the call with `toolCallId`, appending `created` when it is unknown. */
export function upsertToolCall(
  calls: readonly ActiveToolCall[],
  toolCallId: string,
  change: (call: ActiveToolCall) => ActiveToolCall,
  created?: ActiveToolCall,
): ActiveToolCall[] {
  const index = calls.findIndex((c) => c.toolCallId === toolCallId);
  if (index === -1) return created === undefined ? [...calls] : [...calls, created];
  const next = [...calls];
  next[index] = change(calls[index] as ActiveToolCall);
  return next;
}

function setStatus(
  calls: readonly ActiveToolCall[],
  toolCallId: string,
  status: ActiveToolCallStatus,
): ActiveToolCall[] {
  return upsertToolCall(calls, toolCallId, (c) => ({ ...c, status }));
}

/**
 * Tool handlers (R16.3): `scheduled` adds a `pending` call, `started` marks it `running`,
 * `result` marks it `completed` (or `failed` when the result says so), `error` marks it
 * `failed`, and `tool_batch_complete` removes the batch's calls without changing the status.
 */
export const toolHandlers: ProjectionHandlers<
  | 'tool_call_scheduled'
  | 'tool_call_started'
  | 'tool_call_result'
  | 'tool_call_error'
  | 'tool_batch_complete'
> = {
  tool_call_scheduled: (p, e) => {
    const { toolCallId, toolName } = e.payload;
    if (p.activeToolCalls.some((c) => c.toolCallId === toolCallId)) return p;
    return {
      ...p,
      activeToolCalls: [...p.activeToolCalls, { toolCallId, toolName, status: 'pending' }],
    };
  },
  tool_call_started: (p, e) => {
    const { toolCallId, toolName, startedAt } = e.payload;
    const activeToolCalls = upsertToolCall(
      p.activeToolCalls,
      toolCallId,
      (c) => ({ ...c, toolName: toolName ?? c.toolName, status: 'running', startedAt }),
      { toolCallId, toolName: toolName ?? '', status: 'running', startedAt },
    );
    return { ...p, activeToolCalls };
  },
  tool_call_result: (p, e) => ({
    ...p,
    activeToolCalls: setStatus(
      p.activeToolCalls,
      e.payload.toolCallId,
      e.payload.result.success ? 'completed' : 'failed',
    ),
  }),
  tool_call_error: (p, e) => ({
    ...p,
    activeToolCalls: setStatus(p.activeToolCalls, e.payload.toolCallId, 'failed'),
  }),
  tool_batch_complete: (p, e) => {
    const done = new Set(e.payload.toolCallIds);
    return { ...p, activeToolCalls: p.activeToolCalls.filter((c) => !done.has(c.toolCallId)) };
  },
};
