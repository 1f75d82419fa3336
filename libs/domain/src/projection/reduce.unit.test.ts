import {
  EVENT_TYPES,
  type EventType,
  type SessionEventOf,
  SessionProjection,
} from '@agentwire/contracts';
import {
  type SampleEventOverrides,
  sampleEventPayloads,
  sampleSessionEvent,
} from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { HANDLED_EVENT_TYPES } from './handler-table.ts';
import { projectionHandlers } from './handlers.ts';
import { initialProjection, rebuildProjection, reduce } from './reduce.ts';

const SID = 'session-1';
let seq = 0;
/** The next numbered event of `type`, payload overridden field by field. */
function ev<T extends EventType>(
  type: T,
  payload: Partial<SessionEventOf<T>['payload']> = {},
  envelope: SampleEventOverrides = {},
): SessionEventOf<T> {
  seq++;
  const base = sampleSessionEvent(type, {
    sequenceNumber: seq,
    timestamp: 1000 + seq,
    ...envelope,
  });
  return { ...base, payload: { ...sampleEventPayloads[type], ...payload } };
}
const given = (...events: Parameters<typeof reduce>[1][]) =>
  events.reduce(reduce, initialProjection(SID, 1000));

describe('the handler table (R10.1, R16.3)', () => {
  it("given the table, when its keys are listed, then they are R16.3's 30, the title and the queue's three", () => {
    expect(HANDLED_EVENT_TYPES).toHaveLength(35);
    expect(HANDLED_EVENT_TYPES).toContain('session_title_updated');
    expect(HANDLED_EVENT_TYPES).toContain('turn_steer_dispatch_changed');
    expect(Object.keys(projectionHandlers).sort()).toEqual([...HANDLED_EVENT_TYPES].sort());
    for (const t of HANDLED_EVENT_TYPES) expect(EVENT_TYPES).toContain(t);
  });

  it('given the defaults, when the schema parses a bare projection, then it equals initialProjection', () => {
    expect(SessionProjection.parse({ id: SID, createdAt: 5, updatedAt: 5 })).toEqual(
      initialProjection(SID, 5),
    );
  });

  it('given an unhandled type, when reduced, then only updatedAt and the number change', () => {
    const before = given(ev('turn_started'));
    const e = ev('hook_run_started', {}, { timestamp: 9999 });
    expect(reduce(before, e)).toEqual({
      ...before,
      updatedAt: 9999,
      lastSequenceNumber: e.sequenceNumber,
    });
  });
});

describe('the title (docs/decisions/0132)', () => {
  it('given title events, when reduced, then the projection holds the last one', () => {
    const p = given(
      ev('session_title_updated', { title: 'fix it', previousTitle: null, source: 'first_input' }),
      ev('session_title_updated', { title: 'Mine', previousTitle: 'fix it', source: 'custom' }),
    );
    expect([p.title, p.titleSource]).toEqual(['Mine', 'custom']);
  });
});

describe('idempotence (R10)', () => {
  it('given an applied event, when it is applied again, then nothing changes', () => {
    const e = ev('turn_started');
    const once = given(e);
    expect(reduce(once, e)).toBe(once);
  });

  it('given an unnumbered or foreign event, when reduced, then it is ignored', () => {
    const p = initialProjection(SID, 0);
    expect(reduce(p, sampleSessionEvent('turn_started'))).toBe(p);
    expect(reduce(p, ev('turn_started', {}, { sessionId: 'other' }))).toBe(p);
  });
});

describe('turns (R16.3)', () => {
  it('given an errored session, when a turn starts, then running, count + 1, error cleared, current turn set', () => {
    const p = given(ev('turn_started'), ev('turn_error'), ev('turn_started', {}, { turnId: 't2' }));
    expect(p).toMatchObject({
      status: 'running',
      turnCount: 2,
      lastError: null,
      currentTurnId: 't2',
    });
  });

  it('given a running turn, when it completes, then idle and tokenCount added', () => {
    const p = given(
      ev('turn_started'),
      ev('turn_complete', { tokenCount: 70 }),
      ev('turn_started'),
    );
    const done = reduce(p, ev('turn_complete', { tokenCount: 30 }));
    expect(done).toMatchObject({ status: 'idle', totalTokenCount: 100, currentTurnId: null });
  });

  it('given a running turn, when it errors, then status error and the error recorded', () => {
    const started = ev('turn_started');
    const e = ev('turn_error', { turnPhase: 'model' });
    const p = given(started, e);
    expect(p.status).toBe('error');
    expect(p.lastError).toEqual({
      error: sampleEventPayloads.turn_error.error,
      turnId: 'turn-1',
      turnPhase: 'model',
      at: e.timestamp,
    });
  });
});

describe('context usage (R9.7, R16.1)', () => {
  const usage = { inputTokens: 1000, outputTokens: 200 };
  it.each([
    ['main_turn', 'end_turn', 1200],
    [undefined, 'end_turn', 1200],
    [undefined, 'tool_internal', 0],
    ['main_turn', 'tool_internal', 1200],
    ['session_title', 'end_turn', 0],
    ['compact', 'end_turn', 0],
    ['subagent', 'end_turn', 0],
  ] as const)(
    'given querySource %s and stopReason %s, when complete, then contextUsed is %i',
    (qs, stopReason, used) => {
      const payload = { ...sampleEventPayloads.model_complete, usage, stopReason };
      delete (payload as { querySource?: string }).querySource;
      const e = ev('model_complete', qs === undefined ? payload : { ...payload, querySource: qs });
      e.payload = qs === undefined ? payload : { ...payload, querySource: qs };
      expect(given(e).contextUsed).toBe(used);
    },
  );

  it('given usage with zero input and output, when complete, then total tokens count', () => {
    const e = ev('model_complete', { querySource: 'main_turn', usage: { totalTokens: 4242 } });
    expect(given(e).contextUsed).toBe(4242);
  });

  it('given a compaction boundary, when reduced, then context usage is the post count', () => {
    const p = given(
      ev('model_complete', { querySource: 'main_turn', usage: { inputTokens: 150_000 } }),
      ev('compact_boundary', { postCompactTokenCount: 9000 }),
    );
    expect(p.contextUsed).toBe(9000);
    expect(p.lastCompact).toMatchObject({ postCompactTokenCount: 9000 });
  });
});

describe('tool calls (R16.3)', () => {
  it('given scheduled calls, when started and finished, then statuses follow', () => {
    const p = given(
      ev('tool_call_scheduled', { toolCallId: 'a', toolName: 'read' }),
      ev('tool_call_scheduled', { toolCallId: 'b', toolName: 'bash' }),
      ev('tool_call_started', { toolCallId: 'a', toolName: 'read', startedAt: 5 }),
      ev('tool_call_result', { toolCallId: 'a' }),
      ev('tool_call_error', { toolCallId: 'b' }),
    );
    expect(p.activeToolCalls).toEqual([
      { toolCallId: 'a', toolName: 'read', status: 'completed', startedAt: 5 },
      { toolCallId: 'b', toolName: 'bash', status: 'failed' },
    ]);
  });

  it('given a batch, when it completes, then its calls leave the active list and status stays', () => {
    const p = given(
      ev('turn_started'),
      ev('tool_call_scheduled', { toolCallId: 'a' }),
      ev('tool_call_scheduled', { toolCallId: 'b' }),
      ev('tool_batch_complete', { toolCallIds: ['a'] }),
    );
    expect(p.activeToolCalls.map((c) => c.toolCallId)).toEqual(['b']);
    expect(p.status).toBe('running');
  });
});

describe('permissions (R16.3)', () => {
  const requested = (toolCallId: string) =>
    ev('permission_requested', { toolCallId, requestId: `req-${toolCallId}` });

  it('given a pending request, when denied, then the call is denied and the request gone', () => {
    const p = given(
      ev('turn_started'),
      ev('tool_call_scheduled', { toolCallId: 'a' }),
      requested('a'),
      ev('permission_resolved', { toolCallId: 'a', requestId: 'req-a', decision: 'deny' }),
    );
    expect(p.pendingPermissions).toEqual([]);
    expect(p.activeToolCalls[0]?.status).toBe('denied');
    expect(p.status).toBe('running');
  });

  it('given a pending request, when allowed, then the call is marked completed', () => {
    const p = given(
      ev('tool_call_scheduled', { toolCallId: 'a' }),
      requested('a'),
      ev('permission_resolved', { toolCallId: 'a', requestId: 'req-a', decision: 'allow' }),
    );
    expect(p.activeToolCalls[0]?.status).toBe('completed');
  });

  it('given a running turn, when permission is requested, then it waits until all are answered', () => {
    const waiting = given(ev('turn_started'), requested('a'), requested('b'));
    expect(waiting.status).toBe('waiting');
    expect(waiting.pendingPermissions.map((r) => r.toolCallId)).toEqual(['a', 'b']);
    const one = reduce(waiting, ev('permission_denied', { toolCallId: 'a' }));
    expect(one.status).toBe('waiting');
    const both = reduce(one, ev('permission_resolved', { toolCallId: 'b', requestId: 'req-b' }));
    expect(both.status).toBe('running');
  });
});

describe('a turn leaves nothing open behind it (docs/decisions/0121)', () => {
  const leftovers = (turnId: string) => [
    ev('turn_started', {}, { turnId }),
    ev('tool_call_scheduled', { toolCallId: 'r' }, { turnId }),
    ev('tool_call_result', { toolCallId: 'r' }, { turnId }),
    ev('tool_call_scheduled', { toolCallId: 'w' }, { turnId }),
    ev('permission_requested', { toolCallId: 'w', requestId: 'req-w' }, { turnId }),
  ];

  it.each([
    ['turn_complete', 'idle'],
    ['turn_error', 'error'],
  ] as const)(
    'given a request and calls no event settled, when the turn ends by %s, then none is left',
    (end, status) => {
      const p = given(...leftovers('t1'), ev(end, {}, { turnId: 't1' }));
      expect(p).toMatchObject({ status, pendingPermissions: [], activeToolCalls: [] });
    },
  );

  it('given an unsealed turn with leftovers, when the next turn starts, then none carries over', () => {
    const p = given(...leftovers('t1'), ev('turn_started', {}, { turnId: 't2' }));
    expect(p).toMatchObject({ status: 'running', pendingPermissions: [], activeToolCalls: [] });
  });

  it('given two requests of one call, when one is denied by request id, then only it leaves', () => {
    const p = given(
      ev('turn_started'),
      ev('permission_requested', { toolCallId: 'a', requestId: 'req-1' }),
      ev('permission_requested', { toolCallId: 'a', requestId: 'req-2' }),
      ev('permission_denied', { toolCallId: 'a', requestId: 'req-1', reason: 'interrupted' }),
    );
    expect(p.pendingPermissions.map((r) => r.requestId)).toEqual(['req-2']);
    expect(p.status).toBe('waiting');
  });
});

describe('queued inputs (R16.3, R14.4)', () => {
  const queued = (id: string) =>
    ev('turn_steer_queued', { pendingInputId: id, input: `do ${id}`, delivery: 'guide' });

  it('given queued inputs, when reordered, changed, drained and discarded, then the list follows', () => {
    const q = given(queued('a'), queued('b'), queued('c'), queued('a'));
    expect(q.pendingSteerInputs.map((i) => i.pendingInputId)).toEqual(['a', 'b', 'c']);
    expect(q.pendingSteerInputs[0]).toMatchObject({ traceId: q.pendingSteerInputs[0]?.traceId });
    const r = reduce(q, ev('turn_steer_reordered', { orderedPendingInputIds: ['c', 'a'] }));
    expect(r.pendingSteerInputs.map((i) => i.pendingInputId)).toEqual(['c', 'a', 'b']);
    const d = reduce(
      r,
      ev('turn_steer_delivery_changed', { pendingInputId: 'a', admittedDelivery: 'queue' }),
    );
    expect(d.pendingSteerInputs[1]?.delivery).toBe('queue');
    const promoted = reduce(
      given(ev('turn_steer_queued', { pendingInputId: 'p' })),
      ev('session_input_promoted', { pendingInputId: 'p' }),
    );
    expect(promoted.pendingSteerInputs).toEqual([]);
    const drained = reduce(d, ev('turn_steer_drained', { pendingInputIds: ['c'] }));
    const discarded = reduce(drained, ev('turn_steer_discarded', { pendingInputId: 'b' }));
    expect(discarded.pendingSteerInputs.map((i) => i.pendingInputId)).toEqual(['a']);
    const started = reduce(discarded, ev('turn_started', { inputId: 'a' }));
    expect(started.pendingSteerInputs).toEqual([]);
  });

  it('given a queued input, when its dispatch changes, then the input shows where it is (0235)', () => {
    const q = given(ev('turn_steer_queued', { pendingInputId: 'a' }));
    expect(q.pendingSteerInputs[0]?.dispatch).toBe('queued');
    const reserved = reduce(
      q,
      ev('turn_steer_dispatch_changed', {
        pendingInputId: 'a',
        state: 'reserved',
        reservationId: 'r1',
      }),
    );
    expect(reserved.pendingSteerInputs[0]?.dispatch).toBe('reserved');
    // An edit re-emits `queued` for the same id: the dispatch state stays.
    const edited = reduce(reserved, ev('turn_steer_queued', { pendingInputId: 'a', input: 'x' }));
    expect(edited.pendingSteerInputs[0]).toMatchObject({ input: 'x', dispatch: 'reserved' });
  });

  it('given the mode events, when reduced, then queueModes shows both lanes and auto-drain', () => {
    const fresh = given();
    expect(fresh.queueModes).toEqual({
      steeringMode: 'all',
      followUpMode: 'one_at_a_time',
      autoDrain: true,
    });
    const p = given(
      ev('followup_mode_changed', {
        steeringMode: 'one_at_a_time',
        followUpMode: 'all',
        previousSteeringMode: 'all',
        previousFollowUpMode: 'one_at_a_time',
      }),
      ev('queue_auto_drain_changed', { enabled: false }),
    );
    expect(p.queueModes).toEqual({
      steeringMode: 'one_at_a_time',
      followUpMode: 'all',
      autoDrain: false,
    });
  });
});

describe('goals, checkpoints, rewinds, background tasks (R16.3)', () => {
  it('given verifications, when a new target is set, then both lists are cleared', () => {
    const p = given(
      ev('target_changed', { action: 'set' }),
      ev('target_completion_verification', {
        status: 'completed',
        verification: { passed: false, reason: 'tests fail' },
      }),
    );
    expect(p.targetCompletionVerifications).toHaveLength(1);
    expect(p.targetCompletionVerificationTimeline).toHaveLength(1);
    const reset = reduce(p, ev('target_changed', { action: 'set' }));
    expect(reset.targetCompletionVerifications).toEqual([]);
    expect(reset.targetCompletionVerificationTimeline).toEqual([]);
    const cleared = reduce(reset, ev('target_changed', { action: 'cleared', target: null }));
    expect(cleared.target).toBeNull();
  });

  it('given checkpoint, rewind and anchor events, when reduced, then the last of each is kept', () => {
    const p = given(
      ev('checkpoint_created', { checkpointId: 'c1' }),
      ev('checkpoint_created', { checkpointId: 'c2' }),
      ev('rewind_triggered', { rewindId: 'r1' }),
      ev('stream_recovery_anchor_created', { anchorId: 'a1' }),
      ev('session_mode_changed', { mode: 'yolo' }),
    );
    expect(p.lastCheckpoint?.checkpointId).toBe('c2');
    expect(p.lastRewind?.rewindId).toBe('r1');
    expect(p.lastStreamRecoveryAnchor?.anchorId).toBe('a1');
    expect(p.mode).toBe('yolo');
  });

  it('given a background task, when updated and completed, then one entry carries the last status', () => {
    const p = given(
      ev('background_task_started', { taskId: 't', command: 'npm test' }),
      ev('background_task_updated', { taskId: 't', status: 'running' }),
      ev('background_task_completed', { taskId: 't', status: 'failed' }),
    );
    expect(p.backgroundTasks).toHaveLength(1);
    expect(p.backgroundTasks[0]).toMatchObject({
      taskId: 't',
      status: 'failed',
      command: 'npm test',
    });
  });

  it('given a streaming tool ledger, when the turn seals, then the ledger is cleared', () => {
    const p = given(ev('turn_started'), ev('streaming_tool_ledger_updated'));
    expect(p.streamingToolLedger).toEqual(
      sampleEventPayloads.streaming_tool_ledger_updated.entries,
    );
    expect(reduce(p, ev('turn_complete')).streamingToolLedger).toEqual([]);
  });
});

describe('rebuildProjection (R10.3)', () => {
  it('given no events, when rebuilt, then it is the initial projection', () => {
    expect(rebuildProjection(SID, [])).toEqual(initialProjection(SID, 0));
  });

  it('given events, when rebuilt, then createdAt is the first timestamp and all apply in order', () => {
    const events = [ev('session_created'), ev('turn_started'), ev('turn_complete')];
    const p = rebuildProjection(SID, events);
    expect(p.createdAt).toBe(events[0]?.timestamp);
    expect(p.lastSequenceNumber).toBe(events[2]?.sequenceNumber);
    expect(SessionProjection.parse(p)).toEqual(p);
  });
});
