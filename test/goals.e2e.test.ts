import type { SessionEvent } from '@agentwire/contracts';
import { firstInputTitle } from '@agentwire/domain';
import {
  type Follow,
  type RuntimeReply,
  type RuntimeStack,
  startRuntimeStack,
  type WireDriver,
} from '@agentwire/runtime/testing';
import type { createDatabase } from '@agentwire/store';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Goals against real processes (issue 13 item 4, docs/decisions/0231): a goal runs turns by
 * itself until the scripted verifier passes it, another runs out of budget, pause and resume
 * hold across runtime SIGKILLs, the first goal is named by the title sidecar and by its
 * truncated objective once the sidecar is down, and every bad `/goal` is a typed error that
 * changes nothing.
 */
let stack: RuntimeStack;
let client: WireDriver;
let db: ReturnType<typeof createDatabase>;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'goals-e2e',
      titleSidecar: true,
      projection: true,
      runtimeEnv: {
        AW_TITLE_GENERATION: 'on',
        AW_TITLE_REQUEST_TIMEOUT_MS: '10000',
        AW_COMPACT_AT: 'off',
      },
    },
    ['goalA', 'goalB'],
  );
  ({ client, db } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface GoalTarget {
  targetId: string;
  objective: string;
  summaryTitle: string | null;
  status: string;
  tokenBudget: number | null;
  tokensUsed: number;
}

async function openSession(): Promise<{ sid: string; owner: string; follow: Follow }> {
  const opened = await client.open();
  if (!opened.ok) throw new Error(opened.error.message);
  const sid = String(opened.sessionId);
  return { sid, owner: String(opened.owner), follow: client.follow(sid, 0) };
}

/** Sends a prompt; a request cut by a runtime's SIGKILL is sent again, as a frontend does. */
async function send(sid: string, text: string): Promise<RuntimeReply> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await client.op(sid, 'prompt', { text }, 10_000);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error) || !/timeout|503/i.test(err.message)) throw err;
    }
  }
}

const goalEvents = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'target_changed'
      ? [e.payload as { action: string; source: string; target: GoalTarget | null }]
      : [],
  );
const lastGoal = (events: readonly SessionEvent[]) => goalEvents(events).at(-1)?.target ?? null;
const goalTurns = (events: readonly SessionEvent[]) =>
  events.filter(
    (e) =>
      e.type === 'turn_started' &&
      (e.payload as { inputSource?: string }).inputSource === 'goal-continuation',
  );
const verifications = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'target_completion_verification'
      ? [e.payload as { status: string; verification?: { passed: boolean } }]
      : [],
  );

async function projectionOf(sid: string): Promise<Record<string, unknown>> {
  const reply = await client.request(stack.names.projectionGet, { sessionId: sid });
  return reply.ok ? (reply.projection as Record<string, unknown>) : {};
}

describe('goals (issue 13 item 4)', () => {
  it('a goal with a budget runs turns by itself until the verifier passes; the sidecar names it; the worker writes entries and dividers', async () => {
    const { sid, follow } = await openSession();
    const objective = 'make the whole test suite pass [scenario:goal_three_turns]';
    const reply = await send(sid, `/goal ${objective} --budget 100k`);
    expect(reply).toMatchObject({
      ok: true,
      command: 'goal',
      result: { target: { objective, status: 'active', tokenBudget: 100_000 } },
    });
    await waitUntil(() => lastGoal(follow.events)?.status === 'complete', {
      timeoutMs: 60_000,
      what: 'the goal to complete',
    });
    // Three turns, each started by a model-only continuation notice, none by a submission.
    const turns = goalTurns(follow.events);
    expect(turns).toHaveLength(3);
    for (const t of turns) {
      expect(t.payload).toMatchObject({ inputVisibility: 'model-only' });
      expect(t.payload).not.toHaveProperty('inputId');
    }
    expect(
      verifications(follow.events).map((v) => `${v.status}:${v.verification?.passed ?? '-'}`),
    ).toEqual([
      'started:-',
      'completed:false',
      'started:-',
      'completed:false',
      'started:-',
      'completed:true',
    ]);
    const sources = follow.events.flatMap((e) =>
      e.type === 'model_request' ? [(e.payload as { querySource?: string }).querySource] : [],
    );
    expect(sources.filter((s) => s === 'target_completion_verification')).toHaveLength(3);
    expect(sources).toContain('goal_summary_title');
    // The sidecar's title, not the objective cut short.
    await waitUntil(() => goalEvents(follow.events).some((g) => g.action === 'summary_updated'), {
      what: 'the goal summary title',
    });
    const named = goalEvents(follow.events).find((g) => g.action === 'summary_updated');
    expect(named?.target?.summaryTitle).toBeTruthy();
    expect(named?.target?.summaryTitle).not.toBe(firstInputTitle(objective));
    const done = lastGoal(follow.events);
    expect(done?.tokensUsed).toBeGreaterThan(0);
    expect(done?.tokensUsed).toBeLessThan(100_000);
    // The projection shows the goal and its verdicts.
    await waitUntil(
      async () =>
        (await projectionOf(sid)).target !== undefined &&
        ((await projectionOf(sid)).target as GoalTarget | null)?.status === 'complete',
      { what: 'the completed goal in the projection' },
    );
    const projection = await projectionOf(sid);
    const verdicts = projection.targetCompletionVerifications as { passed: boolean }[];
    expect(verdicts.map((v) => v.passed)).toEqual([false, false, true]);
    // The worker: one session entry per verification event, and a divider for each (R6, R7.7).
    await waitUntil(
      async () => {
        const rows = await db
          .selectFrom('session_entries')
          .select('event_id')
          .where('session_id', '=', sid)
          .where('type', '=', 'target_completion_verification')
          .execute();
        return rows.length === 6;
      },
      { what: 'six verification entries' },
    );
    const dividers = await db
      .selectFrom('parts')
      .select('data')
      .where('session_id', '=', sid)
      .where('type', '=', 'timeline')
      .execute();
    const kinds = dividers.map((d) => (d.data as { kind: string }).kind);
    expect(kinds.filter((k) => k === 'goal_verification')).toHaveLength(6);

    // A second goal of the same session runs out of its budget.
    const second = await send(sid, '/goal keep polishing [scenario:goal_never_done] --budget 600');
    expect(second).toMatchObject({ ok: true, result: { target: { tokenBudget: 600 } } });
    await waitUntil(() => lastGoal(follow.events)?.status === 'budget_limited', {
      timeoutMs: 60_000,
      what: 'the second goal to run out of budget',
    });
    await waitUntil(() => goalEvents(follow.events).at(-1)?.action === 'run_finished', {
      what: 'the run to finish',
    });
    const limited = lastGoal(follow.events);
    expect(limited?.status).toBe('budget_limited');
    expect(limited?.tokensUsed).toBeGreaterThanOrEqual(600);
    const turnsNow = goalTurns(follow.events).length;
    expect(turnsNow).toBeGreaterThan(3);
    await new Promise((r) => setTimeout(r, 500));
    expect(goalTurns(follow.events)).toHaveLength(turnsNow);
    await follow.stop();
  }, 120_000);

  it('pause and resume hold across SIGKILLs: a paused goal stays paused on the next owner, an active one runs on', async () => {
    const { sid, owner, follow } = await openSession();
    await send(sid, '/goal wait for the signal [scenario:held_stream]');
    await waitUntil(() => goalTurns(follow.events).length === 1, { what: 'the first goal turn' });
    expect(await send(sid, '/goal pause')).toMatchObject({
      ok: true,
      result: { target: { status: 'paused' } },
    });
    await stack.killRuntime(owner);
    const status = await send(sid, '/goal status');
    expect(status).toMatchObject({ ok: true, result: { target: { status: 'paused' } } });
    // The next owner settled the killed turn and starts nothing for a paused goal.
    await waitUntil(() => follow.events.some((e) => e.type === 'turn_error'), {
      what: 'the killed turn settled',
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(goalTurns(follow.events)).toHaveLength(1);
    expect(await send(sid, '/goal resume')).toMatchObject({
      ok: true,
      result: { target: { status: 'active' } },
    });
    await waitUntil(() => goalTurns(follow.events).length === 2, { what: 'the resumed goal turn' });

    // Killed while active: the next owner recovers the goal and runs on by itself.
    // The one runtime left owns the session now; a new one takes over when it dies.
    const [survivor = ''] = [...stack.runtimes.keys()];
    await stack.startRuntime('goalC');
    await stack.killRuntime(survivor);
    expect(await send(sid, '/goal status')).toMatchObject({
      ok: true,
      result: { target: { status: 'active' } },
    });
    await waitUntil(() => goalTurns(follow.events).length === 3, {
      timeoutMs: 30_000,
      what: 'the goal running on after the SIGKILL',
    });
    expect(await send(sid, '/goal clear')).toMatchObject({ ok: true, result: { target: null } });
    expect(await client.op(sid, 'interrupt', { wait: true })).toMatchObject({ ok: true });
    await follow.stop();
  }, 120_000);

  it('every bad /goal is a typed error and changes nothing', async () => {
    const { sid, follow } = await openSession();
    const cases: [string, string][] = [
      ['/goal', 'invalid_command'],
      ['/goal    ', 'invalid_command'],
      ['/goal --budget 500', 'invalid_command'],
      ['/goal ship it --budget -10', 'invalid_command'],
      ['/goal ship it --budget 0', 'invalid_command'],
      ['/goal ship it --budget 99999999999', 'invalid_command'],
      ['/goal ship it --budget plenty', 'invalid_command'],
      ['/goal pause', 'no_goal'],
      ['/goal resume', 'no_goal'],
      ['/goal clear', 'no_goal'],
    ];
    for (const [text, code] of cases) {
      const reply = await send(sid, text);
      expect(reply, text).toMatchObject({ ok: false, error: { code } });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(goalEvents(follow.events)).toEqual([]);
    expect(follow.events.filter((e) => e.type === 'turn_started')).toEqual([]);
    // A verifier whose answer is not a verdict fails closed, never completes the goal, and
    // three in a row pause it; the session still takes a prompt.
    await send(sid, '/goal check the release notes [scenario:goal_bad_verdict]');
    await waitUntil(() => lastGoal(follow.events)?.status === 'paused', {
      timeoutMs: 60_000,
      what: 'the goal paused after three failed checks',
    });
    expect(verifications(follow.events).map((v) => v.status)).toEqual([
      'started',
      'failed_closed',
      'started',
      'failed_closed',
      'started',
      'failed_closed',
    ]);
    expect(goalEvents(follow.events).some((g) => g.target?.status === 'complete')).toBe(false);
    await waitUntil(() => follow.events.at(-1)?.type !== 'turn_started');
    const after = await client.runTurn(sid, 'are you still there?', follow);
    expect(after).toMatchObject({ ok: true, status: 'complete' });
    await follow.stop();
  }, 120_000);

  it('with the title sidecar down, the goal is named by its objective cut short (R9.10)', async () => {
    for (const sidecar of stack.sidecars) sidecar.kill('SIGKILL');
    const { sid, follow } = await openSession();
    const objective =
      'refactor the persistence worker so that every batch commits in one transaction [scenario:goal_three_turns]';
    await send(sid, `/goal ${objective}`);
    await waitUntil(() => goalEvents(follow.events).some((g) => g.action === 'summary_updated'), {
      timeoutMs: 30_000,
      what: 'the goal summary title',
    });
    const named = goalEvents(follow.events).find((g) => g.action === 'summary_updated');
    expect(named?.target?.summaryTitle).toBe(firstInputTitle(objective));
    await waitUntil(() => lastGoal(follow.events)?.status === 'complete', {
      timeoutMs: 60_000,
      what: 'the goal to complete without the sidecar',
    });
    await follow.stop();
  }, 120_000);
});
