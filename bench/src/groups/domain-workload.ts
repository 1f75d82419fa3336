import type { EventType, SessionEvent } from '@agentwire/contracts';
import { sampleEventPayloads } from '@agentwire/contracts/testing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A fresh event object of `type` with its sample payload (unnumbered, R2.2). */
function makeEvent<T extends EventType>(
  sessionId: string,
  turnId: string | null,
  type: T,
  id: number,
  payload: object = sampleEventPayloads[type],
): SessionEvent {
  return {
    id: `e${id}`,
    sessionId,
    turnId,
    type,
    timestamp: 1_700_000_000_000 + id,
    traceId: TRACE,
    sequenceNumber: 0,
    payload,
  } as SessionEvent;
}

/**
 * A realistic turn as the projection sees it (non-transient events only): start, model
 * request and completion, a queued input, three tool calls with a permission round trip,
 * the batch end, a checkpoint, hooks and the seal. 24 events.
 */
function turnEvents(sessionId: string, turn: number, next: () => number): SessionEvent[] {
  const t = `turn-${turn}`;
  const ev = (type: EventType, payload?: object) => makeEvent(sessionId, t, type, next(), payload);
  const calls = ['c1', 'c2', 'c3'].map((c) => `${t}-${c}`);
  return [
    ev('turn_started', { turnNumber: turn, input: 'fix the flaky test' }),
    ev('model_request'),
    ev('hook_run_started'),
    ev('model_complete', { ...sampleEventPayloads.model_complete, querySource: 'main_turn' }),
    ev('turn_steer_queued', { ...sampleEventPayloads.turn_steer_queued, pendingInputId: `${t}-q` }),
    ...calls.map((toolCallId) =>
      ev('tool_call_scheduled', { ...sampleEventPayloads.tool_call_scheduled, toolCallId }),
    ),
    ev('permission_requested', {
      ...sampleEventPayloads.permission_requested,
      toolCallId: calls[0],
    }),
    ev('permission_resolved', { toolCallId: calls[0], decision: 'allow' }),
    ...calls.map((toolCallId) => ev('tool_call_started', { toolCallId, startedAt: 1 })),
    ...calls.map((toolCallId) =>
      ev('tool_call_result', { ...sampleEventPayloads.tool_call_result, toolCallId }),
    ),
    ev('tool_batch_complete', { toolCallIds: calls, successCount: 3, errorCount: 0 }),
    ev('turn_steer_drained', { pendingInputIds: [`${t}-q`], injectedMessageIds: [], inputs: [] }),
    ev('checkpoint_created'),
    ev('model_request'),
    ev('model_complete', { ...sampleEventPayloads.model_complete, querySource: 'main_turn' }),
    ev('background_task_updated', {
      ...sampleEventPayloads.background_task_updated,
      taskId: `task-${turn % 4}`,
    }),
    ev('turn_complete'),
  ];
}

/** `turns` turns of one session, numbered 1, 2, 3... as the store would number them. */
export function projectionWorkload(sessionId: string, turns: number): SessionEvent[] {
  let id = 0;
  const next = () => ++id;
  const events: SessionEvent[] = [];
  for (let turn = 1; turn <= turns; turn++) events.push(...turnEvents(sessionId, turn, next));
  return events.map((e, i) => ({ ...e, sequenceNumber: i + 1 }));
}
