import {
  type AssistantMessage,
  type EventPayload,
  type EventType,
  type Part,
  parseSessionEvent,
  SAMPLE_TRACE_ID,
  type SessionEvent,
  type ToolPart,
  type UserMessage,
} from '@agentwire/contracts';
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
}

const stepArb = fc.record({
  input: fc.integer({ min: 0, max: 5000 }),
  output: fc.integer({ min: 0, max: 800 }),
  tools: fc.array(fc.constantFrom('completed' as const, 'error' as const, 'running' as const), {
    maxLength: 3,
  }),
  fails: fc.boolean(),
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
      if (step.fails && lastStep) {
        const error = { type: 'provider_error', message: 'boom' };
        const message: AssistantMessage = { ...base, time: { created: clock }, error };
        transcript.push({ message, parts: [text] });
        emit('model_error', turnId, { error, retryable: false });
        emit('turn_error', turnId, { error, turnPhase: 'model_stream' });
        return;
      }
      const tools = lastStep ? step.tools.filter(() => false) : step.tools;
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
        const stopHere = outcome === 'running' && isLast;
        emit('tool_call_started', turnId, {
          toolCallId: callId,
          toolName: 'read',
          startedAt: start,
        });
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
    const { transcript } = play('s1', [
      [
        { input: 100, output: 20, tools: ['completed'], fails: false },
        { input: 150, output: 30, tools: [], fails: false },
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
});
