import {
  createEvent,
  type EventPayload,
  type EventType,
  type SessionEvent,
} from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { historyFromTranscript, type TranscriptRow } from './history-from-transcript.ts';
import { TurnScanner } from './open-turn.ts';

const TRACE = 'c'.repeat(32);
let n = 0;
function ev<T extends EventType>(
  type: T,
  turnId: string | null,
  payload: EventPayload<T>,
): SessionEvent {
  n += 1;
  return {
    ...createEvent({
      id: `e${n}`,
      sessionId: 's',
      turnId,
      type,
      payload,
      timestamp: 1,
      traceId: TRACE,
    }),
    sequenceNumber: n,
  };
}
const schedule = { parallelGroups: [['c1'], ['c2']], executionOrder: ['c1', 'c2'] };

describe('TurnScanner (flow 6)', () => {
  it('given a turn that started two calls and closed one, reports the other as open', () => {
    const scanner = new TurnScanner();
    for (const e of [
      ev('turn_started', 't1', { turnNumber: 0, input: 'a' }),
      ev('turn_complete', 't1', {
        response: '',
        tokenCount: 0,
        toolCallCount: 0,
        duration: 1,
        resultType: 'success',
      }),
      ev('turn_started', 't2', { turnNumber: 1, input: 'b', inputId: 'in-2' }),
      ev('tool_call_scheduled', 't2', {
        toolCallId: 'c1',
        toolName: 'read_file',
        input: { path: 'a' },
        assistantMessageId: 'm1',
        schedule,
      }),
      ev('tool_call_scheduled', 't2', {
        toolCallId: 'c2',
        toolName: 'run_command',
        input: { command: 'x' },
        assistantMessageId: 'm1',
        schedule,
      }),
      ev('tool_call_started', 't2', { toolCallId: 'c1', startedAt: 5 }),
      ev('tool_call_result', 't2', {
        toolCallId: 'c1',
        result: { success: true, content: 'ok' },
        duration: 1,
      }),
    ]) {
      scanner.add(e);
    }
    expect(scanner.result()).toEqual({
      open: {
        turnId: 't2',
        traceId: TRACE,
        inputId: 'in-2',
        toolCalls: [
          {
            toolCallId: 'c2',
            toolName: 'run_command',
            input: { command: 'x' },
            assistantMessageId: 'm1',
            startedAt: undefined,
          },
        ],
        permissions: [],
        batch: { toolCallIds: ['c1', 'c2'], successCount: 1, errorCount: 0 },
        lastMessageId: 'm1',
        model: undefined,
      },
      lastSealedTurnId: 't1',
      turnCount: 2,
      waitingInputIds: [],
      settledInputIds: new Set(['in-2']),
      // A retry of in-2 is the same input: its turn is known (issue 9).
      inputs: new Map([['in-2', { turnId: 't2' }]]),
      promotingInputIds: [],
      inputTexts: new Map(),
    });
  });

  it('given every turn sealed, reports nothing open', () => {
    const scanner = new TurnScanner();
    scanner.add(ev('turn_started', 't1', { turnNumber: 0, input: 'a' }));
    scanner.add(
      ev('turn_error', 't1', { error: { type: 'x', message: 'y' }, turnPhase: 'model_stream' }),
    );
    expect(scanner.result()).toMatchObject({
      open: undefined,
      lastSealedTurnId: 't1',
      turnCount: 1,
    });
  });

  it('reports admitted inputs that never started, promoted or left (R14.2)', () => {
    const scanner = new TurnScanner();
    const queued = (id: string) =>
      ev('turn_steer_queued', null, {
        pendingInputId: id,
        input: id,
        inputPreview: id,
        inputSize: id.length,
        delivery: 'queue',
        targetTurnId: 't1',
        queueLength: 1,
      });
    for (const e of [
      queued('a'),
      ev('turn_started', 't1', { turnNumber: 0, input: 'a', inputId: 'a' }),
      queued('b'),
      queued('c'),
      queued('d'),
      queued('e'),
      ev('turn_steer_discarded', null, { pendingInputId: 'c', reason: 'user_removed' }),
      ev('session_input_promoted', null, {
        pendingInputId: 'd',
        sourceCommandId: 'x',
        messageId: 'm',
      }),
      ev('turn_steer_drained', 't1', {
        pendingInputIds: ['e'],
        injectedMessageIds: ['m2'],
        inputs: [],
      }),
    ]) {
      scanner.add(e);
    }
    const result = scanner.result();
    expect(result.waitingInputIds).toEqual(['b']);
    expect([...result.settledInputIds].sort()).toEqual(['a', 'c', 'd', 'e']);
  });

  it('reports the waiting inputs whose message was being written, with their last text (0237)', () => {
    const scanner = new TurnScanner();
    const queued = (id: string, input = id, delivery: 'queue' | 'startNow' = 'queue') =>
      ev('turn_steer_queued', null, {
        pendingInputId: id,
        input,
        inputPreview: input,
        inputSize: input.length,
        delivery,
        targetTurnId: null,
        queueLength: 1,
      });
    const dispatch = (id: string, state: 'queued' | 'reserved' | 'promoting') =>
      ev('turn_steer_dispatch_changed', null, { pendingInputId: id, state, reservationId: null });
    for (const e of [
      queued('a'),
      queued('b'),
      queued('c'),
      queued('a', 'a edited'),
      dispatch('a', 'promoting'),
      dispatch('b', 'promoting'),
      dispatch('b', 'queued'),
      dispatch('c', 'promoting'),
      ev('session_input_promoted', null, {
        pendingInputId: 'c',
        sourceCommandId: 'c',
        messageId: 'm',
      }),
      queued('now', 'started at once', 'startNow'),
    ]) {
      scanner.add(e);
    }
    const result = scanner.result();
    expect(result.promotingInputIds).toEqual(['a', 'now']);
    expect(result.inputTexts.get('a')).toBe('a edited');
  });
});

describe('TurnScanner: what a turn leaves open (issue 20)', () => {
  it('given requests answered by request id or tool call id, reports only the unanswered one', () => {
    const scanner = new TurnScanner();
    const asked = (toolCallId: string, requestId: string) =>
      ev('permission_requested', 't1', {
        toolCallId,
        toolName: 'write_file',
        riskLevel: 'medium',
        reason: 'writes',
        input: {},
        requestId,
      });
    for (const e of [
      ev('turn_started', 't1', { turnNumber: 0, input: 'a', messageId: 'u1' }),
      ev('model_request', 't1', { messages: [], providerId: 'p', modelId: 'm' }),
      asked('c1', 'r1'),
      ev('permission_resolved', 't1', { toolCallId: 'c1', decision: 'allow', requestId: 'r1' }),
      asked('c2', 'r2'),
      ev('permission_denied', 't1', { toolCallId: 'c2', toolName: 'write_file', reason: 'no' }),
      asked('c3', 'r3'),
    ]) {
      scanner.add(e);
    }
    expect(scanner.result().open).toMatchObject({
      permissions: [{ requestId: 'r3', toolCallId: 'c3', toolName: 'write_file' }],
      lastMessageId: 'u1',
      model: { providerId: 'p', modelId: 'm' },
    });
  });
});

describe('historyFromTranscript (R10.4)', () => {
  const rows: TranscriptRow[] = [
    {
      role: 'user',
      providerVisibility: null,
      synthetic: false,
      parts: [
        {
          type: 'text',
          text: 'read a',
          toolCallId: null,
          toolName: null,
          status: null,
          input: null,
          output: null,
          error: null,
        },
      ],
    },
    {
      role: 'assistant',
      providerVisibility: 'visible',
      synthetic: false,
      parts: [
        {
          type: 'text',
          text: 'reading',
          toolCallId: null,
          toolName: null,
          status: null,
          input: null,
          output: null,
          error: null,
        },
        {
          type: 'tool',
          text: null,
          toolCallId: 'c1',
          toolName: 'read_file',
          status: 'completed',
          input: { path: 'a' },
          output: 'A',
          error: null,
        },
        {
          type: 'tool',
          text: null,
          toolCallId: 'c2',
          toolName: 'run_command',
          status: 'error',
          input: { command: 'x' },
          output: null,
          error: 'runtime_lost',
        },
      ],
    },
    {
      role: 'user',
      providerVisibility: 'hidden',
      synthetic: true,
      parts: [
        {
          type: 'text',
          text: 'reminder',
          toolCallId: null,
          toolName: null,
          status: null,
          input: null,
          output: null,
          error: null,
        },
      ],
    },
  ];

  it('rebuilds user, assistant with calls, and one tool message per call; hidden rows are skipped', () => {
    expect(historyFromTranscript(rows)).toEqual([
      { role: 'user', content: 'read a' },
      {
        role: 'assistant',
        content: 'reading',
        toolCalls: [
          { toolCallId: 'c1', toolName: 'read_file', input: { path: 'a' } },
          { toolCallId: 'c2', toolName: 'run_command', input: { command: 'x' } },
        ],
      },
      { role: 'tool', content: 'A', toolCallId: 'c1', toolName: 'read_file', isError: false },
      {
        role: 'tool',
        content: 'runtime_lost',
        toolCallId: 'c2',
        toolName: 'run_command',
        isError: true,
      },
    ]);
  });
});
