import type { ErrorPayload, EventPayload, ModelUsage, SessionEvent } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
  TurnRef,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** How the summary request asks (docs/decisions/0229); the focus, if any, follows it. */
const INSTRUCTION =
  'Summarise the conversation so far for your own later use: the goal, what was done and ' +
  'decided, the files and commands involved with their outcomes, and what is still open. ' +
  'Be complete but brief; the messages summarised are then dropped from your context.';

/** What a summary message starts with, so that the model can tell it from a prompt. */
const SUMMARY_HEADER = 'Summary of the conversation before this point (compacted):\n\n';

/**
 * A provider's answer that the request is longer than the model's context window (OpenAI's
 * `context_length_exceeded`, Anthropic's "prompt is too long", and the like).
 */
const CONTEXT_OVERFLOW =
  /context_length_exceeded|prompt is too long|maximum context length|context (window|length)|too many tokens/i;

/** Tool results kept whole by microcompaction: the newest ones (docs/decisions/0232). */
const MICRO_KEEP = 5;
/** An older tool result longer than this many characters has its body cleared. */
const MICRO_MIN_CHARS = 2_000;
/** What a cleared tool result starts with: a result that starts so is cleared already. */
const CLEARED = '[tool output cleared from the context';

/**
 * Microcompaction's rule (0232), a function of the messages alone so that a cold open
 * clears exactly what the live session cleared: every tool result but the newest
 * {@link MICRO_KEEP} whose body is over {@link MICRO_MIN_CHARS} characters keeps its call
 * id, tool name and error flag, and its body becomes one line saying what was there.
 * Returns the rewritten head (up to the last cleared result) and the ids cleared now.
 *
 * @internal Exported for its tests.
 */
export function microcompacted(messages: readonly ModelMessage[]): {
  readonly head: ModelMessage[];
  readonly cleared: string[];
} {
  const tools: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'tool') tools.push(i);
  });
  const old = tools.slice(0, Math.max(0, tools.length - MICRO_KEEP));
  const head = [...messages];
  const cleared: string[] = [];
  let end = 0;
  for (const i of old) {
    const m = messages[i];
    if (m === undefined || m.content.length <= MICRO_MIN_CHARS || m.content.startsWith(CLEARED)) {
      continue;
    }
    const what = m.toolName === undefined ? 'a tool' : m.toolName;
    head[i] = {
      ...m,
      content: `${CLEARED} to save space: ${m.content.length} characters of ${what}'s output; run the tool again if you need it]`,
    };
    cleared.push(m.toolCallId ?? '');
    end = i + 1;
  }
  return { head: head.slice(0, end), cleared };
}

/** About four characters a token: the estimate of a context the model has not seen yet. */
function estimateTokens(messages: readonly ModelMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += m.content.length;
    for (const c of m.toolCalls ?? []) chars += JSON.stringify(c.input ?? null).length;
  }
  return Math.ceil(chars / 4);
}

/** R16.1: context tokens are input + output, or the total when that sum is 0. */
function contextTokens(usage: ModelUsage): number {
  const sum = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return sum > 0 ? sum : (usage.totalTokens ?? 0);
}

/**
 * Where the kept part of the conversation starts: its last user prompt (a summary is not
 * one). Everything before it is summarised.
 */
function keptFrom(messages: readonly ModelMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m?.role === 'user' && m.summary !== true) return i;
  }
  return 0;
}

/** The context the session's last main-turn step used, as the stream states it (R16.1). */
function recoveredContext(events: readonly SessionEvent[]): number | undefined {
  let used: number | undefined;
  for (const e of events) {
    if (e.type === 'model_complete' && (e.payload.querySource ?? 'main_turn') === 'main_turn') {
      used = contextTokens(e.payload.usage);
    } else if (e.type === 'compact_boundary') {
      used = e.payload.postCompactTokenCount ?? used;
    }
  }
  return used;
}

type CompactTrigger = EventPayload<'compact_boundary'>['trigger'];

/** A compaction's turn, when it runs inside one (automatic, before the first request). */
type InTurn = TurnRef | undefined;

interface CompactionOutcome {
  readonly ok: boolean;
  readonly operationId: string;
  readonly boundaryId?: string;
  readonly summaryMessageId: string;
  readonly preCompactTokenCount?: number;
  readonly postCompactTokenCount?: number;
  readonly summarizedMessageCount?: number;
  readonly keptMessageCount?: number;
  readonly reason?: string;
}

function attach(ctx: FeatureContext, autoShare: number | undefined): FeatureHooks {
  let contextUsed = recoveredContext(ctx.recovered);
  let running: Promise<CompactionOutcome> | undefined;
  /** A `/compact` outside any turn runs (the scheduler waits for it). */
  let manual = false;

  /** Runs one compaction (R16.2's five events); never throws for a bad summary. */
  const compact = async (
    trigger: CompactTrigger,
    focus: string,
    turn: InTurn,
  ): Promise<CompactionOutcome> => {
    const messages = ctx.conversation.messages();
    const from = keptFrom(messages);
    const summarised = messages.slice(0, from);
    const operationId = ctx.ids.newId('cmp');
    const summaryMessageId = ctx.ids.newId('msg');
    // The summary stands before the kept prompt in the transcript: it is dated when the
    // compaction started, so a prompt that arrives meanwhile is dated after it (0229).
    const startedAt = ctx.clock.now();
    const traceId = turn?.traceId ?? ctx.ids.newTraceId();
    const base = { operationId, messageId: summaryMessageId, trigger };
    await ctx.emit('compact_started', { ...base, status: 'started' }, turn);
    const fail = async (reason: string, error?: ErrorPayload): Promise<CompactionOutcome> => {
      await ctx.emit(
        'compact_failed',
        { ...base, status: 'failed', reason, ...(error === undefined ? {} : { error }) },
        turn,
      );
      return { ok: false, operationId, summaryMessageId, reason };
    };
    const model = ctx.currentModel();
    const request: ModelMessage[] = [
      ...summarised,
      { role: 'user', content: focus === '' ? INSTRUCTION : `${INSTRUCTION}\n\nFocus: ${focus}` },
    ];
    await ctx.emit(
      'model_request',
      {
        ...ctx.conversation.requestFields(request),
        providerId: model.selection.providerId,
        modelId: model.selection.modelId,
        querySource: 'compact',
        toolCount: 0,
      },
      turn,
    );
    let text = '';
    let usage: ModelUsage = {};
    let failure: ErrorPayload | undefined;
    let finished = false;
    try {
      for await (const part of model.provider.stream({
        messages: request,
        tools: [],
        querySource: 'compact',
      })) {
        if (part.type === 'text-delta') text += part.text;
        else if (part.type === 'error') {
          const { message, code, retryable } = part.error;
          failure = { type: 'provider_error', message, code, retryable };
        } else if (part.type === 'finish') {
          finished = true;
          usage = part.usage;
        }
      }
    } catch (err) {
      failure = { type: 'provider_error', message: (err as Error).message };
    }
    if (failure !== undefined || !finished) {
      const error = failure ?? {
        type: 'provider_error',
        message: 'the summary stream ended without a finish',
        code: 'stream_incomplete',
      };
      await ctx.emit(
        'model_error',
        { error, retryable: error.retryable ?? false, querySource: 'compact' },
        turn,
      );
      return fail('model_error', error);
    }
    await ctx.emit(
      'model_complete',
      {
        content: text,
        stopReason: 'stop',
        usage,
        querySource: 'compact',
        toolCallCount: 0,
        contextWindow: model.contextWindow,
        providerId: model.selection.providerId,
        modelId: model.selection.modelId,
      },
      turn,
    );
    const summary = text.trim();
    if (summary === '') return fail('empty_summary');
    const content = `${SUMMARY_HEADER}${summary}`;
    const head: ModelMessage = { role: 'user', content, summary: true };
    // The last step's context, or the conversation as it stands now when that is larger
    // (a new prompt since, or the request a provider refused as too long).
    const pre = Math.max(contextUsed ?? 0, estimateTokens(messages));
    const post = estimateTokens([head, ...ctx.conversation.messages().slice(from)]);
    // A summary as long as what it replaces frees nothing: the conversation stays whole.
    if (post >= pre) return fail('no_gain');
    const committed = await ctx.conversation.saveMessage(
      {
        id: summaryMessageId,
        sessionId: ctx.sessionId,
        role: 'user',
        time: { created: startedAt },
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
      [
        {
          id: ctx.ids.newId('prt'),
          sessionId: ctx.sessionId,
          messageId: summaryMessageId,
          type: 'text',
          text: content,
        },
      ],
      traceId,
    );
    if (!committed) return fail('summary_not_persisted');
    const kept = ctx.conversation.messages().length - from;
    ctx.conversation.replaceBefore(from, [head]);
    const boundaryId = ctx.ids.newId('cb');
    await ctx.conversation.savePart(
      {
        id: ctx.ids.newId('prt'),
        sessionId: ctx.sessionId,
        messageId: summaryMessageId,
        type: 'timeline',
        kind: 'context_compaction',
        title: 'Context compacted',
        time: { created: ctx.clock.now() },
        boundaryId,
        preCompactTokenCount: pre,
        postCompactTokenCount: post,
      },
      traceId,
    );
    contextUsed = post;
    await ctx.emit(
      'compact_boundary',
      {
        boundaryId,
        trigger,
        preCompactTokenCount: pre,
        postCompactTokenCount: post,
        summarizedMessageCount: summarised.length,
        keptMessageCount: kept,
        summaryMessageIds: [summaryMessageId],
      },
      turn,
    );
    await ctx.emit('compact_completed', { ...base, status: 'completed', boundaryId }, turn);
    await ctx.emit(
      'session_compacted',
      {
        boundaryId,
        preCompactTokenCount: pre,
        postCompactTokenCount: post,
        summaryMessageId,
      },
      turn,
    );
    return {
      ok: true,
      operationId,
      boundaryId,
      summaryMessageId,
      preCompactTokenCount: pre,
      postCompactTokenCount: post,
      summarizedMessageCount: summarised.length,
      keptMessageCount: kept,
    };
  };

  /** Runs one at a time; the caller has checked there is something to compact. */
  const runOne = (trigger: CompactTrigger, focus: string, turn: InTurn) => {
    const job = compact(trigger, focus, turn).finally(() => {
      running = undefined;
    });
    running = job;
    return job;
  };

  /**
   * Microcompaction (0232): clears the bodies of old large tool results at a turn's start,
   * before any full compaction is considered; `microcompact_boundary` names them.
   */
  const microcompact = async (turn: TurnRef): Promise<void> => {
    const messages = ctx.conversation.messages();
    const { head, cleared } = microcompacted(messages);
    if (cleared.length === 0) return;
    const pre = Math.max(contextUsed ?? 0, estimateTokens(messages));
    // The freed share, estimated before the head is replaced (the messages are the live list).
    const freed = estimateTokens(messages.slice(0, head.length)) - estimateTokens(head);
    ctx.conversation.replaceBefore(head.length, head);
    const post = Math.max(0, pre - freed);
    contextUsed = contextUsed === undefined ? undefined : post;
    await ctx.emit(
      'microcompact_boundary',
      {
        boundaryId: ctx.ids.newId('mcb'),
        clearedToolCallIds: cleared,
        preCompactTokenCount: pre,
        postCompactTokenCount: post,
      },
      turn,
    );
  };

  /** Whether anything but an earlier summary stands before the last prompt. */
  const compactable = (): boolean => {
    const messages = ctx.conversation.messages();
    return messages.slice(0, keptFrom(messages)).some((m) => m.summary !== true);
  };

  const command: SlashCommand = {
    name: 'compact',
    kind: 'session',
    summary: 'Summarise the conversation before the last prompt to free the context',
    usage: '/compact [focus]',
    run: async (args) => {
      if (running !== undefined) {
        throw new RuntimeError('compaction_in_progress', 'a compaction is running already');
      }
      if (ctx.turnRunning()) {
        throw new RuntimeError(
          'turn_in_progress',
          'a turn is running; compact when it has ended (or interrupt it)',
        );
      }
      if (!compactable()) {
        throw new RuntimeError(
          'nothing_to_compact',
          'nothing stands before the last prompt but an earlier summary',
        );
      }
      manual = true;
      try {
        const outcome = await runOne('manual', args, undefined);
        return { kind: 'result', result: { ...outcome } };
      } finally {
        manual = false;
        // What was submitted meanwhile waited in the queue (R12.5): it starts now.
        ctx.wake();
      }
    },
  };

  return {
    commands: [command],
    // A `/compact` outside a turn holds the scheduler: a prompt sent meanwhile is queued
    // and starts once the summary is in (0235), instead of a turn waiting inside for it.
    busy: () => manual,
    onEvent(event) {
      if (
        event.type === 'model_complete' &&
        (event.payload.querySource ?? 'main_turn') === 'main_turn'
      ) {
        contextUsed = contextTokens(event.payload.usage);
      }
    },
    async onModelError(error, turn) {
      // Reactive (0229): the provider refused the request as too long; compact, then the
      // turn sends the step once more.
      if (!CONTEXT_OVERFLOW.test(`${error.code ?? ''} ${error.message}`)) return false;
      await running;
      if (!compactable()) return false;
      const outcome = await runOne('reactive', '', turn);
      return outcome.ok;
    },
    async onTurnStart(turn) {
      // A turn's first request waits for a compaction that runs (0229).
      await running;
      if (autoShare === undefined) return;
      await microcompact({ turnId: turn.turnId, traceId: turn.traceId });
      if (contextUsed === undefined) return;
      const window = ctx.currentModel().contextWindow;
      if (contextUsed < autoShare * window || !compactable()) return;
      await runOne('auto', '', { turnId: turn.turnId, traceId: turn.traceId });
    },
  };
}

/** Options of {@link compactionFeature}. */
export interface CompactionOptions {
  /**
   * Share of the model's context window past which a turn compacts before its first
   * request (`AW_COMPACT_AT`); undefined compacts only on `/compact`.
   */
  readonly autoShare?: number;
}

/**
 * Compaction (issue 13 item 3, R16.1-R16.2, docs/decisions/0229): `/compact [focus]`, and
 * automatically before a turn whose context passed a share of the window. A model request
 * with `querySource: "compact"` summarises everything before the last prompt; the summary
 * becomes a message of kind `compact_summary` with a `context_compaction` part, and the
 * conversation continues from it and the kept messages. A failed or empty summary changes
 * nothing (`compact_failed`).
 */
export function compactionFeature(options: CompactionOptions = {}): SessionFeature {
  return {
    name: 'compaction',
    recoversFrom: ['model_complete', 'compact_boundary'],
    attach: (ctx) => attach(ctx, options.autoShare),
  };
}
