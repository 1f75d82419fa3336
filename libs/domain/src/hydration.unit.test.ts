import {
  type AssistantMessage,
  type EventPayload,
  type EventType,
  type Part,
  parseSessionEvent,
  type SessionEvent,
  type ToolPart,
  type UserMessage,
} from '@agentwire/contracts';
import { SAMPLE_TRACE_ID } from '@agentwire/contracts/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hydrateTranscript, type TranscriptEntry, transcriptView } from './hydration.ts';
import { rebuildProjection } from './projection/reduce.ts';

/** What happens in one model step of a generated turn. */
interface StepScript {
  readonly input: number;
  readonly output: number;
  /** Outcome of each tool call of the step. */
  readonly tools: readonly ('completed' | 'error' | 'running')[];
  readonly fails: boolean;
  /**
   * The turn ends early in this step (issue 20): by an interrupt or by the loss of its
   * runtime (then settled by the next owner), while the step streams or at its first tool.
   */
  readonly endsBy: 'none' | 'interrupt' | 'lost';
  readonly during: 'stream' | 'tools';
}

const ERRORS = {
  interrupt: { type: 'interrupted', message: 'the turn was interrupted', code: 'interrupted' },
  lost: { type: 'runtime_lost', message: 'the runtime stopped', code: 'runtime_lost' },
} as const;

/**
 * The message that records an early end: the interrupted step itself, or the closing
 * message the next owner writes for a lost turn (docs/decisions/0122).
 */
function endedMessage(
  step: Omit<AssistantMessage, 'time'>,
  by: 'interrupt' | 'lost',
  at: number,
): AssistantMessage {
  return {
    ...step,
    id: by === 'lost' ? `${step.id}-closing` : step.id,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: at, completed: at },
    error: ERRORS[by],
  };
}

const stepArb = fc.record({
  input: fc.integer({ min: 0, max: 5000 }),
  output: fc.integer({ min: 0, max: 800 }),
  tools: fc.array(fc.constantFrom('completed' as const, 'error' as const, 'running' as const), {
    maxLength: 3,
  }),
  fails: fc.boolean(),
  endsBy: fc.constantFrom('none' as const, 'none' as const, 'interrupt' as const, 'lost' as const),
  during: fc.constantFrom('stream' as const, 'tools' as const),
});
const sessionArb = fc.array(fc.array(stepArb, { minLength: 1, maxLength: 3 }), {
  minLength: 1,
  maxLength: 5,
});

/**
 * Plays a session the way the runtime does (services/runtime turn-runner, model-step,
 * tool-executor): the live events it publishes and the messages and parts it persists.
 */
function play(sid: string, turns: readonly (readonly StepScript[])[]) {
  const events: SessionEvent[] = [];
  const transcript: TranscriptEntry[] = [];
  let clock = 1_000;
  const emit = <T extends EventType>(type: T, turnId: string, payload: EventPayload<T>) => {
    clock += 1;
    events.push({
      id: `e${events.length + 1}`,
      sessionId: sid,
      turnId,
      type,
      timestamp: clock,
      traceId: SAMPLE_TRACE_ID,
      sequenceNumber: events.length + 1,
      payload,
    } as SessionEvent);
  };
  /** How the live stream ends a turn that ended early: cancelled, or lost and settled. */
  const endEarly = (
    by: 'interrupt' | 'lost',
    turnId: string,
    tokenCount: number,
    toolCallCount: number,
  ) => {
    if (by === 'lost') {
      emit('turn_error', turnId, { error: ERRORS.lost, turnPhase: 'runtime_lost' });
      return;
    }
    emit('turn_complete', turnId, {
      response: '',
      tokenCount,
      toolCallCount,
      duration: 10,
      resultType: 'cancelled',
    });
  };
  turns.forEach((steps, t) => {
    const turnId = `t${t + 1}`;
    const isLast = t === turns.length - 1;
    clock += 10;
    const user: UserMessage = {
      id: `u${t}`,
      sessionId: sid,
      role: 'user',
      time: { created: clock },
      agent: 'build',
      anchor: { turnId },
    };
    transcript.push({
      message: user,
      parts: [
        { id: `up${t}`, sessionId: sid, messageId: user.id, type: 'text', text: `task ${t}` },
      ],
    });
    emit('turn_started', turnId, { turnNumber: t + 1, input: `task ${t}`, messageId: user.id });
    let tokens = 0;
    let toolCalls = 0;
    for (const [s, step] of steps.entries()) {
      const lastStep = s === steps.length - 1;
      emit('model_request', turnId, {
        messages: [{ role: 'user', content: `task ${t}` }],
        providerId: 'p',
        modelId: 'm',
        querySource: 'main_turn',
      });
      clock += 5;
      const id = `a${t}-${s}`;
      const base = {
        id,
        sessionId: sid,
        role: 'assistant' as const,
        parentId: user.id,
        providerId: 'p',
        modelId: 'm',
        mode: 'build',
        agent: 'build',
        path: { cwd: '/w', root: '/w' },
        cost: 0,
        tokens: {
          input: step.input,
          output: step.output,
          reasoning: 0,
          cache: { read: 0, write: 0 },
        },
        anchor: { turnId },
      };
      const text: Part = {
        id: `${id}-txt`,
        sessionId: sid,
        messageId: id,
        type: 'text',
        text: `answer ${t}.${s}`,
      };
      const endsBy = step.endsBy === 'none' ? undefined : step.endsBy;
      if (endsBy !== undefined && step.during === 'stream') {
        // The interrupted step is saved as such; a lost one never was, and the next owner
        // writes the turn's closing message (docs/decisions/0122).
        const message = endedMessage(base, endsBy, clock);
        transcript.push({ message, parts: endsBy === 'interrupt' ? [text] : [] });
        endEarly(endsBy, turnId, tokens, toolCalls);
        return;
      }
      if (step.fails && lastStep) {
        const error = { type: 'provider_error', message: 'boom' };
        const message: AssistantMessage = { ...base, time: { created: clock }, error };
        transcript.push({ message, parts: [text] });
        emit('model_error', turnId, { error, retryable: false });
        emit('turn_error', turnId, { error, turnPhase: 'model_stream' });
        return;
      }
      const tools = lastStep ? step.tools.filter(() => false) : step.tools;
      const cut = endsBy !== undefined && tools.length > 0 ? endsBy : undefined;
      const message: AssistantMessage = {
        ...base,
        time: { created: clock, completed: clock + 1 },
        finish: tools.length > 0 ? 'tool-calls' : 'stop',
      };
      const usage = {
        inputTokens: step.input,
        outputTokens: step.output,
        totalTokens: step.input + step.output,
      };
      tokens += usage.totalTokens;
      emit('model_complete', turnId, {
        content: `answer ${t}.${s}`,
        stopReason: message.finish ?? 'stop',
        usage,
        querySource: 'main_turn',
        toolCallCount: tools.length,
      });
      const ids = tools.map((_, k) => `c${t}-${s}-${k}`);
      const parts: ToolPart[] = [];
      for (const [k, outcome] of tools.entries()) {
        const callId = `c${t}-${s}-${k}`;
        emit('tool_call_scheduled', turnId, {
          toolCallId: callId,
          toolName: 'read',
          input: { k },
          assistantMessageId: id,
          schedule: { parallelGroups: [ids], executionOrder: ids },
        });
        const start = clock + 2;
        const partBase = {
          id: `${callId}-p`,
          sessionId: sid,
          messageId: id,
          type: 'tool' as const,
          toolCallId: callId,
          toolName: 'read',
        };
        const stopHere = cut === undefined && outcome === 'running' && isLast;
        emit('tool_call_started', turnId, {
          toolCallId: callId,
          toolName: 'read',
          startedAt: start,
        });
        if (cut !== undefined) {
          // Interrupted or lost at its first tool: every call of the batch ends in error.
          const error = ERRORS[cut];
          emit('tool_call_error', turnId, { toolCallId: callId, toolName: 'read', error });
          parts.push({
            ...partBase,
            state: {
              status: 'error',
              input: { k },
              error: error.message,
              time: { start, end: start + 1 },
            },
          });
          continue;
        }
        if (stopHere) {
          parts.push({ ...partBase, state: { status: 'running', input: { k }, time: { start } } });
          continue;
        }
        if (outcome === 'error') {
          emit('tool_call_error', turnId, {
            toolCallId: callId,
            toolName: 'read',
            error: { type: 'tool_error', message: 'nope' },
          });
          parts.push({
            ...partBase,
            state: {
              status: 'error',
              input: { k },
              error: 'nope',
              time: { start, end: start + 1 },
            },
          });
        } else {
          emit('tool_call_result', turnId, {
            toolCallId: callId,
            toolName: 'read',
            result: { success: true, content: 'ok' },
            duration: 1,
          });
          parts.push({
            ...partBase,
            state: {
              status: 'completed',
              input: { k },
              output: 'ok',
              metadata: {
                schemaVersion: 1,
                serialization: { truncated: false, rawBytes: 2, returnedBytes: 2 },
              },
              time: { start, end: start + 1 },
            },
          });
        }
      }
      transcript.push({ message, parts: [text, ...parts] });
      toolCalls += tools.length;
      if (parts.some((p) => p.state.status === 'running')) return;
      if (tools.length > 0) {
        emit('tool_batch_complete', turnId, {
          toolCallIds: ids,
          successCount: parts.filter((p) => p.state.status === 'completed').length,
          errorCount: parts.filter((p) => p.state.status === 'error').length,
        });
      }
      if (cut !== undefined) {
        if (cut === 'lost')
          transcript.push({ message: endedMessage(base, cut, clock + 3), parts: [] });
        endEarly(cut, turnId, tokens, toolCalls);
        return;
      }
    }
    emit('turn_complete', turnId, {
      response: 'done',
      tokenCount: tokens,
      toolCallCount: toolCalls,
      duration: 10,
      resultType: 'success',
    });
  });
  return { events, transcript };
}

describe('hydrateTranscript (R10.4)', () => {
  it('given a completed turn with a tool call, yields the event sequence the runtime published', () => {
    const step = { fails: false, endsBy: 'none', during: 'stream' } as const;
    const { transcript } = play('s1', [
      [
        { ...step, input: 100, output: 20, tools: ['completed'] },
        { ...step, input: 150, output: 30, tools: [] },
      ],
    ]);
    const types = hydrateTranscript('s1', transcript, { traceId: SAMPLE_TRACE_ID }).map(
      (e) => e.type,
    );
    expect(types).toEqual([
      'turn_started',
      'model_complete',
      'tool_call_scheduled',
      'tool_call_started',
      'tool_call_result',
      'tool_batch_complete',
      'model_complete',
      'turn_complete',
    ]);
  });

  it('property: every hydrated event parses, and reduce(transcript) = reduce(events) on the transcript fields', () => {
    fc.assert(
      fc.property(sessionArb, (turns) => {
        const { events, transcript } = play('s1', turns);
        const hydrated = hydrateTranscript('s1', transcript, { traceId: SAMPLE_TRACE_ID });
        for (const e of hydrated) expect(parseSessionEvent(e).ok, e.type).toBe(true);
        expect(hydrated.map((e) => e.sequenceNumber)).toEqual(hydrated.map((_, i) => i + 1));
        const live = transcriptView(rebuildProjection('s1', events));
        expect(transcriptView(rebuildProjection('s1', hydrated))).toEqual(live);
      }),
      { numRuns: 300 },
    );
  });

  it('given turns that ended by interrupt or a lost runtime, seals them as the stream did', () => {
    const step = { input: 10, output: 5, tools: ['completed'], fails: false } as const;
    const { events, transcript } = play('s1', [
      [{ ...step, endsBy: 'interrupt', during: 'stream' }],
      [
        { ...step, endsBy: 'none', during: 'stream' },
        { ...step, endsBy: 'lost', during: 'stream' },
      ],
      [
        { ...step, endsBy: 'lost', during: 'tools' },
        { ...step, endsBy: 'none', during: 'stream' },
      ],
    ]);
    const hydrated = hydrateTranscript('s1', transcript, { traceId: SAMPLE_TRACE_ID });
    const ends = (es: SessionEvent[]) =>
      es.flatMap((e) =>
        e.type === 'turn_complete'
          ? [`complete:${e.payload.resultType}`]
          : e.type === 'turn_error'
            ? ['error']
            : [],
      );
    expect(ends(hydrated)).toEqual(['complete:cancelled', 'error', 'error']);
    expect(ends(events)).toEqual(ends(hydrated));
    expect(transcriptView(rebuildProjection('s1', hydrated))).toEqual(
      transcriptView(rebuildProjection('s1', events)),
    );
  });

  it('given the session row, opens with session_created (recovered, R4.3) and the row title', () => {
    const step = { fails: false, endsBy: 'none', during: 'stream', tools: [] } as const;
    const { transcript } = play('s1', [[{ ...step, input: 10, output: 2 }]]);
    const session = { createdAt: 5, title: 'Mine', titleSource: 'custom' } as const;
    const hydrated = hydrateTranscript('s1', transcript, { traceId: SAMPLE_TRACE_ID, session });
    expect(hydrated.slice(0, 3).map((e) => [e.type, e.sequenceNumber, e.payload])).toEqual([
      ['session_created', 1, { recovered: true, title: 'Mine' }],
      ['session_title_updated', 2, { title: 'Mine', previousTitle: null, source: 'custom' }],
      ['turn_started', 3, expect.objectContaining({ turnNumber: 1 })],
    ]);
    for (const e of hydrated) expect(parseSessionEvent(e).ok, e.type).toBe(true);
    const projection = rebuildProjection('s1', hydrated);
    expect([projection.title, projection.titleSource, projection.turnCount]).toEqual([
      'Mine',
      'custom',
      1,
    ]);
    const untitled = hydrateTranscript('s1', transcript, {
      traceId: SAMPLE_TRACE_ID,
      session: { ...session, title: null, titleSource: null },
    });
    expect(untitled.filter((e) => e.sequenceNumber <= 2).map((e) => e.type)).toEqual([
      'session_created',
      'turn_started',
    ]);
  });
});
