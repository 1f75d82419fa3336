import { HistoryMessage } from '@agentwire/contracts';
import { initialProjection } from '@agentwire/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents, viewOfBase, withOlderMessages } from './session-view.ts';
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

  it('history shows tools after the text of their step, and an older page goes before, once', () => {
    const semantics = {
      origin: 'real_user',
      kind: 'user_prompt',
      uiVisibility: 'visible',
      providerVisibility: 'visible',
      transcriptVisibility: 'visible',
    };
    const user = (id: string, text: string) =>
      HistoryMessage.parse({
        message: {
          id,
          sessionId: 'ses_1',
          role: 'user',
          time: { created: 1 },
          agent: 'build',
          semantics,
        },
        parts: [{ id: `prt_${id}`, sessionId: 'ses_1', messageId: id, type: 'text', text }],
      });
    const tool = HistoryMessage.parse({
      message: {
        id: 'msg_a',
        sessionId: 'ses_1',
        role: 'assistant',
        time: { created: 2, completed: 3 },
        parentId: 'msg_1',
        providerId: 'scripted',
        modelId: 'scripted-1',
        mode: 'build',
        agent: 'build',
        path: { cwd: '/w', root: '/w' },
        cost: 0,
        tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
        finish: 'tool-calls',
        semantics: { ...semantics, origin: 'agent_runtime', kind: 'assistant_response' },
      },
      parts: [
        {
          id: 'msg_a.call_1',
          sessionId: 'ses_1',
          messageId: 'msg_a',
          type: 'tool',
          toolCallId: 'call_1',
          toolName: 'read_file',
          state: {
            status: 'completed',
            input: { path: 'README.md' },
            output: '# hi',
            metadata: {
              schemaVersion: 1,
              serialization: { truncated: false, rawBytes: 4, returnedBytes: 4 },
            },
            time: { start: 2, end: 3 },
          },
        },
        { id: 'prt_z', sessionId: 'ses_1', messageId: 'msg_a', type: 'text', text: 'Let me look.' },
      ],
    });
    const newest = viewOfBase(initialProjection('ses_1', 1), [user('msg_2', 'two'), tool], 9);
    expect(newest.transcript.messages[1]?.parts.map((p) => p.kind)).toEqual(['text', 'tool']);
    const both = withOlderMessages(newest, [user('msg_1', 'one'), user('msg_2', 'two')]);
    expect(both.transcript.messages.map((m) => m.id)).toEqual(['msg_1', 'msg_2', 'msg_a']);
    expect(both.lastSeq).toBe(9);
  });

  it('a compaction shows as a summary divider: live at its boundary, from history by its kind', () => {
    const live = applyEvents(base(), [
      event(
        1,
        'compact_boundary',
        {
          boundaryId: 'cb_1',
          trigger: 'manual',
          preCompactTokenCount: 900,
          postCompactTokenCount: 120,
          summarizedMessageCount: 8,
          keptMessageCount: 2,
          summaryMessageIds: ['msg_s'],
        },
        null,
      ),
    ]);
    expect(live.transcript.messages).toMatchObject([
      {
        id: 'msg_s',
        summary: true,
        parts: [{ text: 'The conversation before this point was summarised (900 tokens to 120).' }],
      },
    ]);
    const summary = HistoryMessage.parse({
      message: {
        id: 'msg_s',
        sessionId: 'ses_1',
        role: 'user',
        time: { created: 1 },
        agent: 'build',
        synthetic: true,
        semantics: {
          origin: 'agent_runtime',
          kind: 'compact_summary',
          uiVisibility: 'visible',
          providerVisibility: 'visible',
          transcriptVisibility: 'visible',
        },
      },
      parts: [
        { id: 'prt_s', sessionId: 'ses_1', messageId: 'msg_s', type: 'text', text: 'We fixed it.' },
      ],
    });
    const read = viewOfBase(initialProjection('ses_1', 1_000), [summary], 0);
    expect(read.transcript.messages).toMatchObject([
      { id: 'msg_s', summary: true, parts: [{ text: 'We fixed it.' }] },
    ]);
  });

  it("a goal's turns draw no prompt bubble; its verdicts are one-line dividers, live and from history", () => {
    const verdict = { passed: false, reason: 'one test fails', nextAction: 'fix it' };
    const live = applyEvents(base(), [
      event(1, 'turn_started', {
        turnNumber: 0,
        input: 'Continue working toward the goal below',
        messageId: 'msg_n',
        inputSource: 'goal-continuation',
        inputVisibility: 'model-only',
      }),
      event(
        2,
        'target_completion_verification',
        { targetId: 'g1', verificationId: 'v1', status: 'started' },
        null,
      ),
      event(
        3,
        'target_completion_verification',
        { targetId: 'g1', verificationId: 'v1', status: 'completed', verification: verdict },
        null,
      ),
    ]);
    expect(live.transcript.messages).toEqual([
      {
        id: 'evt_3-divider',
        role: 'assistant',
        turnId: null,
        streaming: false,
        divider: true,
        parts: [
          {
            kind: 'text',
            id: 'evt_3-divider:line',
            text: 'Goal check: not met yet, one test fails',
          },
        ],
      },
    ]);
    const message = (id: string) => ({
      id,
      sessionId: 'ses_1',
      role: 'assistant',
      time: { created: 1, completed: 1 },
      parentId: '',
      providerId: 'agentwire',
      modelId: 'timeline',
      mode: 'timeline',
      agent: 'runtime',
      path: { cwd: '', root: '' },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      semantics: {
        origin: 'agent_runtime',
        kind: 'timeline_event',
        uiVisibility: 'visible',
        providerVisibility: 'hidden',
        transcriptVisibility: 'visible',
      },
    });
    const part = (id: string, status: string, extra = {}) => ({
      id: `${id}-part`,
      sessionId: 'ses_1',
      messageId: id,
      type: 'timeline',
      kind: 'goal_verification',
      title: `Goal verification ${status}`,
      time: { created: 1 },
      targetId: 'g1',
      verificationId: 'v1',
      status,
      ...extra,
    });
    const history = [
      HistoryMessage.parse({
        message: message('evt_2-divider'),
        parts: [part('evt_2-divider', 'started')],
      }),
      HistoryMessage.parse({
        message: message('evt_3-divider'),
        parts: [part('evt_3-divider', 'completed', { passed: true, reason: 'all green' })],
      }),
    ];
    const read = viewOfBase(initialProjection('ses_1', 1_000), history, 0);
    expect(read.transcript.messages).toMatchObject([
      { id: 'evt_3-divider', divider: true, parts: [{ text: 'Goal check: met, all green' }] },
    ]);
  });
});
