import {
  type EventPayload,
  type ModelUsage,
  type SessionEvent,
  type Target,
  TargetVerification,
} from '@agentwire/contracts';
import { firstInputTitle } from '@agentwire/domain';
import type { ModelMessage } from '@agentwire/model';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
  SyntheticTurn,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** Longest objective `/goal` takes, in characters. */
const MAX_OBJECTIVE_CHARS = 4_000;
/** Largest token budget: more than any session could spend is a typo, not a budget. */
const MAX_BUDGET = 1_000_000_000;
/** Verifications in a row that give no verdict before the goal pauses (no endless loop). */
const MAX_FAILED_VERIFICATIONS = 3;

const USAGE = '/goal <objective> [--budget <tokens>] | /goal pause | resume | clear | status';

type TargetAction = EventPayload<'target_changed'>['action'];
type TargetSource = EventPayload<'target_changed'>['source'];

/** What `/goal` was asked to do. */
type GoalCommand =
  | { readonly kind: 'set'; readonly objective: string; readonly budget: number | null }
  | { readonly kind: 'pause' | 'resume' | 'clear' | 'status' };

function invalid(message: string, detail: Record<string, unknown> = {}): RuntimeError {
  return new RuntimeError('invalid_command', message, { command: 'goal', usage: USAGE, ...detail });
}

/** `12000`, `50k`, `2m`: a whole number of tokens, at least 1 and at most {@link MAX_BUDGET}. */
function parseBudget(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text);
  const unit = match?.[2]?.toLowerCase();
  const value =
    match === null ? Number.NaN : Number(match[1]) * (unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1);
  if (!Number.isInteger(value) || value < 1 || value > MAX_BUDGET) {
    throw invalid(
      `--budget takes a whole number of tokens from 1 to ${MAX_BUDGET} (e.g. 20000 or 50k), not ${JSON.stringify(text)}`,
      { budget: text },
    );
  }
  return value;
}

/**
 * Reads `/goal`'s arguments: a keyword alone (`pause`, `resume`, `clear`, `status`), or an
 * objective with an optional `--budget <tokens>` (or `--budget=<tokens>`) anywhere in it.
 *
 * @internal Exported for its tests.
 */
export function parseGoalCommand(args: string): GoalCommand {
  const word = args.trim().toLowerCase();
  if (word === 'pause' || word === 'resume' || word === 'clear' || word === 'status') {
    return { kind: word };
  }
  let budget: number | null = null;
  const flag = /(?:^|\s)--budget(?:=|\s+)(\S*)/;
  const found = flag.exec(args);
  let objective = args;
  if (found !== null) {
    budget = parseBudget(found[1] ?? '');
    objective = `${args.slice(0, found.index)} ${args.slice(found.index + found[0].length)}`;
  } else if (/(?:^|\s)--budget\s*$/.test(args)) {
    throw invalid('--budget needs a number of tokens', { budget: '' });
  }
  objective = objective.replace(/\s+/g, ' ').trim();
  if (objective === '') throw invalid('/goal needs an objective: /goal <objective>');
  if (objective.length > MAX_OBJECTIVE_CHARS) {
    throw invalid(`a goal's objective takes at most ${MAX_OBJECTIVE_CHARS} characters`, {
      length: objective.length,
    });
  }
  return { kind: 'set', objective, budget };
}

/** The verification request's instruction (docs/decisions/0231). */
function verificationPrompt(objective: string): string {
  return (
    'Check whether this goal is met, judging only from the conversation above.\n' +
    `Goal: ${objective}\n` +
    'Answer with one JSON object and nothing else: {"passed": true or false, "reason": ' +
    '"why", "nextAction": "the next step, when it is not met"}.'
  );
}

/** The notice each goal turn starts with (R8 `goal-continuation`). */
function continuationNotice(target: Target, last: TargetVerification | undefined): string {
  const budget = target.tokenBudget === null ? '' : ` of a budget of ${target.tokenBudget}`;
  const lines = [
    'Continue working toward the goal below; the user set it and is not watching each step.',
    `Goal: ${target.objective}`,
    `Tokens used so far: ${target.tokensUsed}${budget}.`,
  ];
  if (last !== undefined && !last.passed) {
    lines.push(`The last check found it not met yet: ${last.reason}`);
    if (last.nextAction !== undefined) lines.push(`Next: ${last.nextAction}`);
  }
  return lines.join('\n');
}

/**
 * A verdict from the verifier's answer: one JSON object (also inside a Markdown code
 * fence) of the shape of R16.2's `verification`; undefined when it is anything else.
 */
function verdictOf(text: string): TargetVerification | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  try {
    const parsed = TargetVerification.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function tokensOf(usage: ModelUsage): number {
  const sum = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return sum > 0 ? sum : (usage.totalTokens ?? 0);
}

/** A turn that started while the goal was active, and how it ended. */
interface GoalTurn {
  readonly startedAt: number;
  status?: 'complete' | 'cancelled' | 'error';
  tokens: number;
  seconds: number;
}

function attach(ctx: FeatureContext): FeatureHooks {
  let target: Target | null = null;
  for (const e of ctx.recovered) if (e.type === 'target_changed') target = e.payload.target;
  /** True between `run_started` and `run_finished`: the goal is running turns. */
  let running = false;
  /** Goal turns since the last verification, by turn id. */
  const turns = new Map<string, GoalTurn>();
  let lastVerdict: TargetVerification | undefined;
  let failedInARow = 0;

  const change = async (action: TargetAction, source: TargetSource, next: Target | null) => {
    target = next;
    await ctx.emit('target_changed', { action, source, target: next });
  };

  /** Leaves the running state with `status` (R16.2 `run_finished` after the status). */
  const stop = async (status: Target['status'], source: TargetSource) => {
    if (target === null) return;
    if (target.status !== status) await change('status_updated', source, { ...target, status });
    if (running) {
      running = false;
      await change('run_finished', source, target);
    }
  };

  /** Names the goal (R9.10): the sidecar's title, else the objective cut as R9.2 cuts. */
  const nameGoal = async (targetId: string, objective: string) => {
    const generated = await ctx.summaryTitle(objective).catch(() => undefined);
    const summaryTitle = generated ?? firstInputTitle(objective);
    if (target?.targetId !== targetId) return;
    await change('summary_updated', 'runtime', { ...target, summaryTitle });
  };

  /** One completion check (R16.2): `started`, then `completed` or `failed_closed`. */
  const verify = async (
    goal: Target,
  ): Promise<{ verdict?: TargetVerification; tokens: number }> => {
    const verificationId = ctx.ids.newId('ver');
    const base = { targetId: goal.targetId, verificationId };
    await ctx.emit('target_completion_verification', { ...base, status: 'started' });
    const model = ctx.currentModel();
    const messages: ModelMessage[] = [
      ...ctx.conversation.messages(),
      { role: 'user', content: verificationPrompt(goal.objective) },
    ];
    const querySource = 'target_completion_verification';
    const ids = { providerId: model.selection.providerId, modelId: model.selection.modelId };
    await ctx.emit('model_request', {
      ...ctx.conversation.requestFields(messages),
      ...ids,
      querySource,
      toolCount: 0,
    });
    let text = '';
    let usage: ModelUsage | undefined;
    let failure: string | undefined;
    try {
      for await (const part of model.provider.stream({ messages, tools: [], querySource })) {
        if (part.type === 'text-delta') text += part.text;
        else if (part.type === 'error') failure = `${part.error.code}: ${part.error.message}`;
        else if (part.type === 'finish') usage = part.usage;
      }
    } catch (err) {
      failure = (err as Error).message;
    }
    if (failure !== undefined || usage === undefined) {
      const message = failure ?? 'the verification stream ended without a finish';
      await ctx.emit('model_error', {
        error: { type: 'provider_error', message },
        retryable: false,
        querySource,
      });
      const verification = { passed: false, reason: `the verifier failed: ${message}` };
      await ctx.emit('target_completion_verification', {
        ...base,
        status: 'failed_closed',
        verification,
      });
      return { tokens: 0 };
    }
    await ctx.emit('model_complete', {
      content: text,
      stopReason: 'stop',
      usage,
      querySource,
      toolCallCount: 0,
      ...ids,
    });
    const verdict = verdictOf(text);
    if (verdict === undefined) {
      // Fails closed: an answer that is not a verdict never completes a goal.
      const reason = `the verifier's answer is not a verdict: ${JSON.stringify(text.slice(0, 200))}`;
      await ctx.emit('target_completion_verification', {
        ...base,
        status: 'failed_closed',
        verification: { passed: false, reason },
      });
      return { tokens: tokensOf(usage) };
    }
    await ctx.emit('target_completion_verification', {
      ...base,
      status: 'completed',
      verification: verdict,
    });
    return { verdict, tokens: tokensOf(usage) };
  };

  /** After goal turns ended: account, verify, and say whether the goal goes on. */
  const review = async (goal: Target): Promise<boolean> => {
    const ended: GoalTurn[] = [];
    for (const [turnId, turn] of turns) {
      if (turn.status === undefined) continue;
      ended.push(turn);
      turns.delete(turnId);
    }
    const cut = ended.find((t) => t.status !== 'complete');
    const { verdict, tokens } =
      cut === undefined ? await verify(goal) : { verdict: undefined, tokens: 0 };
    // A command may have changed the goal while the verifier ran.
    const now = target;
    if (now === null || now.targetId !== goal.targetId) return false;
    const accounted: Target = {
      ...now,
      tokensUsed: now.tokensUsed + tokens + ended.reduce((n, t) => n + t.tokens, 0),
      timeUsedSeconds: now.timeUsedSeconds + ended.reduce((n, t) => n + t.seconds, 0),
    };
    await change('usage_accounted', 'runtime', accounted);
    if (accounted.status !== 'active') return false;
    if (cut !== undefined) {
      // An interrupted or failed goal turn pauses the goal: the user resumes it.
      await stop('paused', 'runtime');
      return false;
    }
    lastVerdict = verdict;
    if (verdict?.passed === true) {
      failedInARow = 0;
      await stop('complete', 'runtime');
      return false;
    }
    const budget = accounted.tokenBudget;
    if (budget !== null && accounted.tokensUsed >= budget) {
      await stop('budget_limited', 'runtime');
      return false;
    }
    failedInARow = verdict === undefined ? failedInARow + 1 : 0;
    if (failedInARow >= MAX_FAILED_VERIFICATIONS) {
      await stop('paused', 'runtime');
      return false;
    }
    return true;
  };

  /** The goal's next turn, after reviewing those that ended; undefined when it stopped. */
  const nextTurn = async (goal: Target): Promise<SyntheticTurn | undefined> => {
    if ([...turns.values()].some((t) => t.status !== undefined)) {
      if (!(await review(goal))) return undefined;
    }
    const now = target;
    if (now === null || now.targetId !== goal.targetId || now.status !== 'active') {
      return undefined;
    }
    if (!running) {
      running = true;
      await change('run_started', 'runtime', now);
    }
    return {
      notice: continuationNotice(now, lastVerdict),
      source: 'goal-continuation',
      titleInput: now.objective,
    };
  };

  const current = (): Target => {
    if (target === null)
      throw new RuntimeError('no_goal', 'this session has no goal: /goal <objective>');
    return target;
  };

  const stateConflict = (goal: Target, wanted: string) =>
    new RuntimeError('invalid_goal_state', `the goal is ${goal.status}; it cannot ${wanted}`, {
      status: goal.status,
      wanted,
    });

  const command: SlashCommand = {
    name: 'goal',
    kind: 'direct',
    summary: 'Set a goal the agent works toward turn after turn until it is verified',
    usage: USAGE,
    run: async (args) => {
      const asked = parseGoalCommand(args);
      switch (asked.kind) {
        case 'set': {
          if (running && target !== null) {
            running = false;
            await change('run_finished', 'command', target);
          }
          turns.clear();
          lastVerdict = undefined;
          failedInARow = 0;
          const goal: Target = {
            targetId: ctx.ids.newId('goal'),
            objective: asked.objective,
            summaryTitle: null,
            status: 'active',
            tokenBudget: asked.budget,
            tokensUsed: 0,
            timeUsedSeconds: 0,
          };
          await change('set', 'command', goal);
          void nameGoal(goal.targetId, goal.objective);
          ctx.wake();
          return { kind: 'result', result: { target: goal } };
        }
        case 'pause': {
          const goal = current();
          if (goal.status !== 'active') throw stateConflict(goal, 'pause');
          await stop('paused', 'command');
          return { kind: 'result', result: { target } };
        }
        case 'resume': {
          const goal = current();
          if (goal.status !== 'paused') throw stateConflict(goal, 'resume');
          turns.clear();
          failedInARow = 0;
          await change('status_updated', 'command', { ...goal, status: 'active' });
          await ctx.emit('resume', { reason: 'goal_resumed' });
          ctx.wake();
          return { kind: 'result', result: { target } };
        }
        case 'clear': {
          const goal = current();
          if (running) {
            running = false;
            await change('run_finished', 'command', goal);
          }
          turns.clear();
          await change('cleared', 'command', null);
          return { kind: 'result', result: { target: null } };
        }
        case 'status':
          return { kind: 'result', result: { target, running } };
      }
    },
  };

  // A goal that was running when the session was last resident runs on (R10.4).
  if (target?.status === 'active') queueMicrotask(() => ctx.wake());

  return {
    commands: [command],
    onEvent(event: SessionEvent) {
      if (event.turnId === null) return;
      if (event.type === 'turn_started' && target?.status === 'active') {
        turns.set(event.turnId, { startedAt: event.timestamp, tokens: 0, seconds: 0 });
        return;
      }
      const turn = turns.get(event.turnId);
      if (turn === undefined) return;
      if (event.type === 'turn_complete') {
        turn.status = event.payload.resultType === 'cancelled' ? 'cancelled' : 'complete';
        turn.tokens = event.payload.tokenCount;
        turn.seconds = event.payload.duration / 1000;
      } else if (event.type === 'turn_error') {
        turn.status = 'error';
        turn.seconds = Math.max(0, event.timestamp - turn.startedAt) / 1000;
      }
    },
    whenIdle() {
      const goal = target;
      if (goal === null || goal.status !== 'active') return undefined;
      return nextTurn(goal);
    },
  };
}

/**
 * Goals (issue 13 item 4, R16.2, docs/decisions/0231): `/goal <objective> [--budget
 * <tokens>]` sets one; while it is active the session runs turns toward it by itself, each
 * started by a model-only `goal-continuation` notice (R8). After each, a verification
 * request (`querySource: "target_completion_verification"`) decides passed or not yet;
 * the goal stops when verified (`complete`), paused, cleared, or out of budget
 * (`budget_limited`). Every change is a `target_changed`; its state is rebuilt from the
 * last one at cold recovery, so it survives a restart.
 */
export const goals: SessionFeature = {
  name: 'goals',
  recoversFrom: ['target_changed'],
  attach,
};
