import { initialProjection } from '@agentwire/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents, viewOfBase } from './session-view.ts';
import { event } from './test-events.ts';

const msg = 'msg_a1';
const words = (kind: string, partId: string, text: string, from: number) =>
  text.split(/(?<= )/).map((delta, i) =>
    event(from + i, 'model_streaming', {
      delta,
      done: false,
      kind,
      assistantMessageId: msg,
      partId,
    }),
  );

/** One turn as the runtime publishes it: reasoning, streamed text, a tool asking permission. */
const TURN = [
  event(
    1,
    'turn_steer_queued',
    {
      pendingInputId: 'in_1',
      input: 'tidy up',
      inputPreview: 'tidy up',
      inputSize: 7,
      delivery: 'startNow',
      targetTurnId: null,
      queueLength: 0,
    },
    null,
  ),
  event(2, 'turn_started', {
    turnNumber: 0,
    input: 'tidy up',
    messageId: 'msg_u1',
    inputId: 'in_1',
  }),
  event(3, 'model_request', {
    messages: [],
    querySource: 'main_turn',
    providerId: 'p',
    modelId: 'm',
  }),
  ...words('reasoning_delta', 'prt_r', 'Think first.', 4),
  ...words('text_delta', 'prt_t', 'I will **write** it.', 6),
  event(10, 'model_complete', {
    content: 'I will **write** it.',
    stopReason: 'tool-calls',
    querySource: 'main_turn',
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  }),
  event(11, 'tool_call_scheduled', {
    toolCallId: 'c1',
    toolName: 'write_file',
    input: { path: 'a.txt' },
    assistantMessageId: msg,
    schedule: { parallelGroups: [['c1']], executionOrder: ['c1'] },
  }),
  event(12, 'permission_requested', {
    toolCallId: 'c1',
    toolName: 'write_file',
    riskLevel: 'medium',
    reason: 'writes',
    requestId: 'perm_1',
    input: { path: 'a.txt' },
  }),
  event(13, 'permission_resolved', { toolCallId: 'c1', decision: 'allow', requestId: 'perm_1' }),
  event(14, 'tool_call_started', { toolCallId: 'c1', toolName: 'write_file', startedAt: 1 }),
  event(15, 'tool_call_result', {
    toolCallId: 'c1',
    toolName: 'write_file',
    result: { success: true, content: 'wrote 3 bytes' },
    duration: 4,
  }),
  event(16, 'turn_complete', {
    response: 'done',
    tokenCount: 3,
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    toolCallCount: 1,
    duration: 9,
    resultType: 'success',
  }),
];

const base = () => viewOfBase(initialProjection('ses_1', 1_000), [], 0);

describe('the session view', () => {
  it('given a turn, shows its input, thinking, text and the tool with its output', () => {
    const view = applyEvents(base(), TURN);
    const [user, reply] = view.transcript.messages;
    expect(user).toMatchObject({ role: 'user', parts: [{ kind: 'text', text: 'tidy up' }] });
    expect(reply?.parts).toEqual([
      { kind: 'reasoning', id: 'prt_r', text: 'Think first.' },
      { kind: 'text', id: 'prt_t', text: 'I will **write** it.' },
      {
        kind: 'tool',
        id: `${msg}.c1`,
        tool: {
          toolCallId: 'c1',
          toolName: 'write_file',
          input: { path: 'a.txt' },
          status: 'completed',
          output: 'wrote 3 bytes',
        },
      },
    ]);
    expect(view.projection).toMatchObject({
      status: 'idle',
      currentTurnId: null,
      pendingPermissions: [],
    });
    expect(view.lastSeq).toBe(16);
    expect(view.applied).toBe(TURN.length);
  });

  it('while the permission is pending, the projection holds it and the session waits', () => {
    const view = applyEvents(base(), TURN.slice(0, 12));
    expect(view.projection.status).toBe('waiting');
    expect(view.projection.pendingPermissions).toMatchObject([
      { requestId: 'perm_1', toolName: 'write_file' },
    ]);
  });

  it('when deltas were missed (evicted), model_complete gives the whole text once', () => {
    const someDeltasLost = TURN.filter((e) => e.sequenceNumber !== 7 && e.sequenceNumber !== 8);
    const text = applyEvents(base(), someDeltasLost).transcript.messages[1]?.parts[1];
    expect(text).toEqual({ kind: 'text', id: 'prt_t', text: 'I will **write** it.' });
    const allDeltasLost = TURN.filter((e) => e.type !== 'model_streaming');
    const [, reply] = applyEvents(base(), allDeltasLost).transcript.messages;
    expect(
      reply?.parts.filter((p) => p.kind === 'text').map((p) => p.kind === 'text' && p.text),
    ).toEqual(['I will **write** it.']);
  });

  it('replays and duplicates change nothing: any redelivery gives the view of one delivery', () => {
    const once = applyEvents(base(), TURN);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat(4)), { maxLength: 30 }), (steps) => {
        // The feed's deliveries: each goes back some way (a reconnect from an older base, a
        // repeated frame) and on some way; the rest comes at the end.
        let view = base();
        let delivered = 0;
        for (const [back, ahead] of steps) {
          const start = delivered - (back % (delivered + 1));
          const end = Math.min(TURN.length, delivered + ahead);
          view = applyEvents(view, TURN.slice(start, end));
          delivered = Math.max(delivered, end);
        }
        view = applyEvents(view, TURN.slice(delivered));
        expect(view.transcript).toEqual(once.transcript);
        expect(view.projection).toEqual(once.projection);
        expect(view.applied).toBe(once.applied);
      }),
    );
  });
});
