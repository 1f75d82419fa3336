import type { SessionEvent } from '@agentwire/contracts';
import type { ModelRequest } from '@agentwire/model';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { historyFromTranscript, type TranscriptRow } from '../../kernel/history-from-transcript.ts';
import type { SessionStart } from '../../kernel/session-options.ts';
import { memoryTools } from '../../testing/memory-tools.ts';
import { recordingModel } from '../../testing/recording-model.ts';
import { createSessionHarness } from '../../testing/session-harness.ts';
import { builtinFeatures } from '../builtin-features.ts';
import { microcompacted } from './compaction.ts';

function harness(
  options: {
    contextWindow?: number;
    compactAt?: number;
    contextLimit?: number;
    readme?: string;
    start?: SessionStart;
  } = {},
) {
  const { model, seen } = recordingModel(options.contextLimit);
  const h = createSessionHarness({
    model,
    ...(options.readme === undefined
      ? {}
      : { toolSet: memoryTools(new Map([['README.md', options.readme]])) }),
    ...(options.start === undefined ? {} : { start: options.start }),
    features: builtinFeatures(
      options.compactAt === undefined ? {} : { compactAt: options.compactAt },
    ),
    ...(options.contextWindow === undefined
      ? {}
      : {
          models: [
            {
              selection: { providerId: model.providerId, modelId: model.modelId },
              contextWindow: options.contextWindow,
              outputLimit: 100,
              provider: model,
            },
          ],
        }),
  });
  const run = async (text: string) => {
    const admitted = await h.session.submit(text);
    if (!admitted.ok || !('done' in admitted)) throw new Error(`not started: ${text}`);
    return admitted.done;
  };
  const compactEvents = () =>
    h.events.filter((e) => e.type.startsWith('compact') || e.type === 'session_compacted');
  return { ...h, seen, run, compactEvents };
}

/** A prompt long enough that a one-line summary frees context. */
const LONG = `first question: ${'x'.repeat(400)}`;

const querySources = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'model_request' || e.type === 'model_complete'
      ? [`${e.type}:${e.payload.querySource}`]
      : [],
  );

describe('/compact (issue 13 item 3, docs/decisions/0229)', () => {
  it('summarises what came before the last prompt; the next request holds the summary and the kept turn only', async () => {
    const { session, events, writer, seen, run, compactEvents } = harness();
    await run(LONG);
    await run('second question');
    const before = events.length;
    const reply = await session.submit('/compact the open questions');
    expect(reply).toMatchObject({ ok: true, delivery: 'command', command: 'compact' });
    const result = reply.ok && 'result' in reply ? reply.result : {};
    expect(result).toMatchObject({ ok: true, summarizedMessageCount: 2, keptMessageCount: 2 });
    expect(compactEvents().map((e) => e.type)).toEqual([
      'compact_started',
      'compact_boundary',
      'compact_completed',
      'session_compacted',
    ]);
    expect(querySources(events.slice(before))).toEqual([
      'model_request:compact',
      'model_complete:compact',
    ]);
    // The summary request holds the summarised turn and the instruction with the focus.
    const summaryRequest = seen.at(-1);
    expect(summaryRequest?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(summaryRequest?.messages.at(-1)?.content).toContain('Focus: the open questions');
    const saved = writer.calls.filter((c) => c.kind === 'save_user_message').at(-1)?.value as {
      message: { synthetic: boolean; semantics: { kind: string; origin: string } };
      parts: { text: string }[];
    };
    expect(saved.message).toMatchObject({
      synthetic: true,
      semantics: { kind: 'compact_summary', origin: 'agent_runtime' },
    });
    const summaryText = saved.parts[0]?.text ?? '';
    expect(summaryText).toContain('Hello from the scripted model.');
    const part = writer.calls.filter((c) => c.kind === 'save_part').at(-1)?.value;
    expect(part).toMatchObject({ type: 'timeline', kind: 'context_compaction' });
    const boundary = compactEvents().find((e) => e.type === 'compact_boundary');
    expect(boundary?.payload).toMatchObject({ trigger: 'manual', summarizedMessageCount: 2 });

    await run('third question');
    const next = seen.at(-1)?.messages ?? [];
    expect(next.map((m) => [m.role, m.content.slice(0, 40)])).toEqual([
      ['user', summaryText.slice(0, 40)],
      ['user', 'second question'],
      ['assistant', 'Hello from the scripted model.'],
      ['user', 'third question'],
    ]);
    expect(next.some((m) => m.content === LONG)).toBe(false);
  });

  it('refuses with nothing to compact and while a compaction runs, queues while a turn runs; nothing changes', async () => {
    const { session, events, run, compactEvents } = harness();
    await expect(session.submit('/compact')).rejects.toMatchObject({ code: 'nothing_to_compact' });
    await run(LONG);
    await expect(session.submit('/compact')).rejects.toMatchObject({ code: 'nothing_to_compact' });
    await run('second');
    const held = await session.submit('[scenario:held_stream] hold');
    if (!held.ok || !('done' in held)) throw new Error('not started');
    await waitUntil(() => events.some((e) => e.type === 'model_streaming'), {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    // While a turn runs, /compact waits in the queue as an action (0238); removed, it never runs.
    expect(await session.submit('/compact', { inputId: 'in-compact' })).toMatchObject({
      ok: true,
      delivery: 'queue',
    });
    await session.removeInput('in-compact');
    session.interrupt();
    await held.done;
    // A slow summary: a second /compact meanwhile waits for it in the queue, and a direct
    // run of it (the operation's way) is refused.
    const first = session.submit('/compact [scenario:slow_text]');
    await waitUntil(() => compactEvents().length === 1, { timeoutMs: 2_000, intervalMs: 2 });
    expect(await session.submit('/compact', { inputId: 'in-second' })).toMatchObject({
      ok: true,
      delivery: 'queue',
    });
    await session.removeInput('in-second');
    await expect(session.runCommand('compact', '')).rejects.toMatchObject({
      code: 'compaction_in_progress',
    });
    await expect(first).resolves.toMatchObject({ ok: true });
    expect(compactEvents().map((e) => e.type)).toEqual([
      'compact_started',
      'compact_boundary',
      'compact_completed',
      'session_compacted',
    ]);
  });

  it('a prompt sent while /compact runs waits in the queue and starts once the summary is in (R12.5)', async () => {
    const { session, events, run, compactEvents } = harness();
    await run(LONG);
    await run('second');
    const compacting = session.submit('/compact [scenario:slow_text]');
    await waitUntil(() => compactEvents().length === 1, { timeoutMs: 2_000, intervalMs: 2 });
    const prompt = await session.submit('after the summary', { inputId: 'in-after' });
    expect(prompt).toMatchObject({ ok: true, delivery: 'queue' });
    await compacting;
    await waitUntil(() => session.actionState('in-after') === 'completed', {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    const types = events.map((e) => e.type);
    const started = events.findIndex(
      (e) => e.type === 'turn_started' && e.payload.inputId === 'in-after',
    );
    expect(started).toBeGreaterThan(types.indexOf('session_compacted'));
  });

  it('an empty summary or a model error fails the compaction, and the conversation stays whole', async () => {
    const { session, seen, run, compactEvents } = harness();
    await run(LONG);
    await run('second question');
    for (const [scenario, reason] of [
      ['empty_text', 'empty_summary'],
      ['model_error', 'model_error'],
    ] as const) {
      const reply = await session.submit(`/compact [scenario:${scenario}]`);
      expect(reply, scenario).toMatchObject({ ok: true, result: { ok: false, reason } });
    }
    expect(compactEvents().map((e) => [e.type, (e.payload as { reason?: string }).reason])).toEqual(
      [
        ['compact_started', undefined],
        ['compact_failed', 'empty_summary'],
        ['compact_started', undefined],
        ['compact_failed', 'model_error'],
      ],
    );
    await run('third question');
    expect(seen.at(-1)?.messages.map((m) => m.content)).toContain(LONG);
  });
});

describe('automatic compaction before a turn', () => {
  it('compacts when the last context passed the share of the window; the turn starts from the summary', async () => {
    const { events, seen, run, compactEvents } = harness({ contextWindow: 150, compactAt: 0.5 });
    await run(`a first question, long enough to pass half of the window: ${'x'.repeat(400)}`);
    expect(compactEvents()).toEqual([]);
    await run('a second question');
    expect(compactEvents().map((e) => e.type)).toEqual([
      'compact_started',
      'compact_boundary',
      'compact_completed',
      'session_compacted',
    ]);
    const boundary = compactEvents().find((e) => e.type === 'compact_boundary');
    const turnId = events.filter((e) => e.type === 'turn_started').at(-1)?.turnId;
    expect(boundary).toMatchObject({ turnId, payload: { trigger: 'auto', keptMessageCount: 1 } });
    const counts = boundary?.payload as {
      preCompactTokenCount: number;
      postCompactTokenCount: number;
    };
    expect(counts.postCompactTokenCount).toBeLessThan(counts.preCompactTokenCount);
    const turnRequest = seen.at(-1)?.messages ?? [];
    expect(turnRequest.map((m) => m.role)).toEqual(['user', 'user']);
    expect(turnRequest[1]?.content).toBe('a second question');
  });
});

describe('microcompaction (docs/decisions/0232)', () => {
  const BIG = `# big readme\n${'all work and no play '.repeat(150)}`;
  const tools = (r: ModelRequest | undefined) =>
    (r?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content.slice(0, 37));

  it('clears the bodies of large tool results older than the newest five, keeping their ids; a cold open sends the same request', async () => {
    const h = harness({ compactAt: 0.8, readme: BIG });
    for (let n = 1; n <= 6; n += 1) await h.run(`[scenario:read_readme] read ${n}`);
    expect(h.events.filter((e) => e.type === 'microcompact_boundary')).toEqual([]);
    const full = h.session.history.map((m) => ({ ...m }));
    await h.run('[scenario:read_readme] read 7');
    const [boundary] = h.events.filter((e) => e.type === 'microcompact_boundary');
    const firstCall = full.find((m) => m.role === 'tool')?.toolCallId;
    expect(boundary?.payload).toMatchObject({ clearedToolCallIds: [firstCall] });
    const p = boundary?.payload as { preCompactTokenCount: number; postCompactTokenCount: number };
    expect(p.postCompactTokenCount).toBeLessThan(p.preCompactTokenCount);
    // The turn's first request: the oldest result cleared (id, name and error flag kept).
    const live = h.seen.find((r) => r.messages.at(-1)?.content === '[scenario:read_readme] read 7');
    expect(tools(live)).toEqual([
      '[tool output cleared from the context',
      ...Array(5).fill(BIG.slice(0, 37)),
    ]);
    const cleared = live?.messages.find((m) => m.role === 'tool');
    expect(cleared).toMatchObject({ toolCallId: firstCall, toolName: 'read_file', isError: false });
    expect(cleared?.content).toContain(`${BIG.length} characters of read_file`);
    // A cold open reads every result whole from the transcript: the same rule, the same request.
    const cold = harness({
      compactAt: 0.8,
      readme: BIG,
      start: { persisted: true, title: 'x', turnCount: 6, history: full },
    });
    await cold.run('[scenario:read_readme] read 7');
    expect(cold.seen[0]?.messages).toEqual(live?.messages);
  });

  it('leaves small results, the newest five and results cleared before as they are', () => {
    const tool = (id: string, content: string) => ({
      role: 'tool' as const,
      content,
      toolCallId: id,
      toolName: 'read_file',
    });
    const big = 'x'.repeat(2_001);
    const messages = [
      tool('a', big),
      tool('b', 'small'),
      tool('c', `[tool output cleared from the context ${big}`),
      ...['d', 'e', 'f', 'g', 'h'].map((id) => tool(id, big)),
    ];
    const { head, cleared } = microcompacted(messages);
    expect(cleared).toEqual(['a']);
    expect(head).toHaveLength(1);
    expect(microcompacted(messages.slice(1)).cleared).toEqual([]);
  });

  it('is off when automatic compaction is off', async () => {
    const h = harness({ readme: BIG });
    for (let n = 1; n <= 7; n += 1) await h.run(`[scenario:read_readme] read ${n}`);
    expect(h.events.filter((e) => e.type === 'microcompact_boundary')).toEqual([]);
  });
});

describe('reactive compaction', () => {
  it('a "context too long" answer compacts, and the step is sent once more and succeeds', async () => {
    const { events, seen, run, compactEvents } = harness({ contextLimit: 200 });
    await run(LONG);
    const outcome = await run(`second question: ${'y'.repeat(400)}`);
    expect(outcome).toMatchObject({ status: 'complete' });
    const turnId = events.filter((e) => e.type === 'turn_started').at(-1)?.turnId;
    const turn = events.filter((e) => e.turnId === turnId);
    expect(
      turn
        .filter((e) => e.type.startsWith('model_') || e.type.startsWith('compact_'))
        .filter((e) => e.type !== 'model_streaming')
        .map((e) => `${e.type}:${(e.payload as { querySource?: string }).querySource ?? ''}`),
    ).toEqual([
      'model_request:main_turn',
      'model_error:main_turn',
      'compact_started:',
      'model_request:compact',
      'model_complete:compact',
      'compact_boundary:',
      'compact_completed:',
      'model_request:main_turn',
      'model_complete:main_turn',
    ]);
    expect(compactEvents().find((e) => e.type === 'compact_boundary')?.payload).toMatchObject({
      trigger: 'reactive',
    });
    expect(seen.at(-1)?.messages.map((m) => m.role)).toEqual(['user', 'user']);
    expect(events.at(-1)?.type).toBe('turn_complete');
  });

  it('when the summary request is refused too, the turn ends with the first error after one attempt', async () => {
    const { events, run, compactEvents } = harness({ contextLimit: 120 });
    await run(`first: ${'x'.repeat(300)}`);
    const outcome = await run(`second: ${'y'.repeat(600)}`);
    expect(outcome).toMatchObject({ status: 'error' });
    expect(events.filter((e) => e.type === 'model_error').length).toBeLessThanOrEqual(3);
    expect(compactEvents().filter((e) => e.type === 'compact_started')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('turn_error');
  });
});

describe('cold recovery after a compaction (R10.4)', () => {
  const row = (
    role: 'user' | 'assistant',
    text: string,
    extra: Partial<TranscriptRow> = {},
  ): TranscriptRow => ({
    role,
    providerVisibility: 'visible',
    synthetic: false,
    parts: [
      {
        type: 'text',
        text,
        toolCallId: null,
        toolName: null,
        status: null,
        input: null,
        output: null,
        error: null,
      },
    ],
    ...extra,
  });

  it('starts at the last summary, then the prompt it kept and what followed it', () => {
    const summary = { synthetic: true, kind: 'compact_summary' };
    const history = historyFromTranscript([
      row('user', 'one'),
      row('assistant', 'a1'),
      row('user', 'two'),
      row('assistant', 'a2'),
      row('user', 'S1', summary),
      row('user', 'three'),
      row('assistant', 'a3'),
      row('user', 'four'),
      row('assistant', 'a4'),
      row('user', 'S2', summary),
      row('user', 'five'),
    ]);
    expect(history.map((m) => [m.role, m.content, m.summary ?? false])).toEqual([
      ['user', 'S2', true],
      ['user', 'four', false],
      ['assistant', 'a4', false],
      ['user', 'five', false],
    ]);
  });
});
