import type { SessionEvent, SessionEventOf } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import { FakeTitles, titleReply } from '../../testing/fake-titles.ts';
import { recordingModel } from '../../testing/recording-model.ts';
import { createSessionHarness } from '../../testing/session-harness.ts';
import { parseGoalCommand } from './goals.ts';

function harness(titles?: FakeTitles) {
  const { model, seen } = recordingModel();
  const h = createSessionHarness({
    model,
    ...(titles === undefined ? {} : { titleGenerator: titles, titleGeneration: {} }),
  });
  const goalEvents = () =>
    h.events.filter((e): e is SessionEventOf<'target_changed'> => e.type === 'target_changed');
  const actions = () => goalEvents().map((e) => `${e.payload.action}:${e.payload.target?.status}`);
  const last = () => goalEvents().at(-1)?.payload.target;
  const command = async (text: string) => {
    const reply = await h.session.submit(text);
    if (!reply.ok || reply.delivery !== 'command') throw new Error(`not a command: ${text}`);
    return reply.result;
  };
  return { ...h, seen, goalEvents, actions, last, command };
}

const verifications = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'target_completion_verification'
      ? [`${e.payload.status}:${e.payload.verification?.passed ?? '-'}`]
      : [],
  );

async function expectCode(run: Promise<unknown>, code: string): Promise<void> {
  const error = await run.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(RuntimeError);
  expect((error as RuntimeError).code).toBe(code);
}

describe('parseGoalCommand', () => {
  it('reads an objective with a budget anywhere, and the keywords alone', () => {
    expect(parseGoalCommand('make CI green --budget 50k')).toEqual({
      kind: 'set',
      objective: 'make CI green',
      budget: 50_000,
    });
    expect(parseGoalCommand('--budget=1200 tidy   the docs')).toEqual({
      kind: 'set',
      objective: 'tidy the docs',
      budget: 1200,
    });
    expect(parseGoalCommand('ship it')).toEqual({
      kind: 'set',
      objective: 'ship it',
      budget: null,
    });
    expect(parseGoalCommand(' Pause ')).toEqual({ kind: 'pause' });
    expect(parseGoalCommand('pause the video player')).toMatchObject({ kind: 'set' });
  });

  it('refuses an empty objective and a budget that is negative, zero, absurd or not a number', () => {
    for (const args of [
      '',
      '   ',
      '--budget 100',
      'x --budget -5',
      'x --budget 0',
      'x --budget 5000000000',
      'x --budget lots',
      'x --budget 1.5',
      'x --budget',
      'y'.repeat(4_001),
    ]) {
      expect(() => parseGoalCommand(args), args).toThrow(RuntimeError);
      try {
        parseGoalCommand(args);
      } catch (err) {
        expect((err as RuntimeError).code).toBe('invalid_command');
        expect((err as RuntimeError).detail).toMatchObject({ command: 'goal' });
      }
    }
  });
});

describe('goals (issue 13 item 4, docs/decisions/0231)', () => {
  it('runs turns by itself until the verifier passes, each started by a model-only notice', async () => {
    const h = harness();
    await h.command('/goal get the tests green [scenario:goal_three_turns]');
    await waitUntil(() => h.last()?.status === 'complete', { timeoutMs: 5_000 });
    await waitUntil(() => h.session.activeTurnId === undefined);
    const started = h.events.filter((e) => e.type === 'turn_started');
    expect(started).toHaveLength(3);
    for (const e of started) {
      expect(e.payload).toMatchObject({
        inputSource: 'goal-continuation',
        inputVisibility: 'model-only',
      });
      expect(e.payload).not.toHaveProperty('inputId');
    }
    expect(verifications(h.events)).toEqual([
      'started:-',
      'completed:false',
      'started:-',
      'completed:false',
      'started:-',
      'completed:true',
    ]);
    expect(h.actions().filter((a) => !a.startsWith('summary_updated'))).toEqual([
      'set:active',
      'run_started:active',
      'usage_accounted:active',
      'usage_accounted:active',
      'usage_accounted:active',
      'status_updated:complete',
      'run_finished:complete',
    ]);
    // The summary title falls back to the objective without a sidecar (R9.10).
    expect(h.goalEvents().some((e) => e.payload.action === 'summary_updated')).toBe(true);
    const goal = h.last();
    expect(goal?.summaryTitle).toBe('get the tests green [scenario:goal_three_turns]');
    expect(goal?.tokensUsed).toBeGreaterThan(0);
    // Each notice is a synthetic user message with R8's semantics, and the next notice
    // carries the verifier's next action.
    const notices = h.writer.calls.filter((c) => c.kind === 'save_user_message');
    expect(notices).toHaveLength(3);
    for (const n of notices) {
      expect((n.value as { message: unknown }).message).toMatchObject({
        synthetic: true,
        source: 'goal-continuation',
        semantics: {
          kind: 'system_reminder',
          uiVisibility: 'hidden',
          providerVisibility: 'visible',
        },
        anchor: { origin: 'goalContinuation' },
      });
    }
    const verifyRequests = h.seen.filter((r) => r.querySource === 'target_completion_verification');
    expect(verifyRequests).toHaveLength(3);
    const second = h.seen.filter((r) => r.querySource === undefined)[1];
    expect(second?.messages.at(-1)?.content).toContain('Next: add the test runner');
    // The verification's model events never count as the main turn's context (R16.1).
    const sources = h.events.flatMap((e) =>
      e.type === 'model_complete' ? [e.payload.querySource ?? 'main_turn'] : [],
    );
    expect(sources.filter((s) => s === 'target_completion_verification')).toHaveLength(3);
  });

  it('stops budget_limited once the tokens used reach the budget', async () => {
    const h = harness();
    await h.command('/goal never quite done [scenario:goal_never_done] --budget 400');
    await waitUntil(() => h.last()?.status === 'budget_limited', { timeoutMs: 5_000 });
    const goal = h.last();
    expect(goal?.tokensUsed).toBeGreaterThanOrEqual(400);
    expect(h.actions().slice(-2)).toEqual([
      'status_updated:budget_limited',
      'run_finished:budget_limited',
    ]);
    await waitUntil(() => h.session.activeTurnId === undefined);
    const turns = h.events.filter((e) => e.type === 'turn_started').length;
    expect(turns).toBeGreaterThanOrEqual(2);
    // Nothing more runs.
    await new Promise((r) => setTimeout(r, 50));
    expect(h.events.filter((e) => e.type === 'turn_started')).toHaveLength(turns);
  });

  it('fails closed on a reply that is not a verdict, and pauses after three in a row', async () => {
    const h = harness();
    await h.command('/goal check it [scenario:goal_bad_verdict]');
    await waitUntil(() => h.last()?.status === 'paused', { timeoutMs: 5_000 });
    expect(verifications(h.events)).toEqual([
      'started:-',
      'failed_closed:false',
      'started:-',
      'failed_closed:false',
      'started:-',
      'failed_closed:false',
    ]);
  });

  it('pauses, resumes and clears; commands without a goal or in the wrong state are typed errors', async () => {
    const h = harness();
    await expectCode(h.session.submit('/goal pause'), 'no_goal');
    await expectCode(h.session.submit('/goal resume'), 'no_goal');
    await expectCode(h.session.submit('/goal clear'), 'no_goal');
    await expectCode(h.session.submit('/goal   '), 'invalid_command');
    await expectCode(h.session.submit('/goal x --budget -3'), 'invalid_command');
    expect(h.goalEvents()).toEqual([]);
    // A held turn: the goal's first turn stays running while the commands run.
    await h.command('/goal hold on [scenario:held_stream]');
    await waitUntil(() => h.session.activeTurnId !== undefined);
    await expectCode(h.session.submit('/goal resume'), 'invalid_goal_state');
    await h.command('/goal pause');
    expect(h.last()?.status).toBe('paused');
    await expectCode(h.session.submit('/goal pause'), 'invalid_goal_state');
    await h.session.interrupt().done;
    await waitUntil(() => h.session.activeTurnId === undefined);
    // Paused: the turn's end starts nothing.
    await new Promise((r) => setTimeout(r, 30));
    expect(h.events.filter((e) => e.type === 'turn_started')).toHaveLength(1);
    await h.command('/goal resume');
    await waitUntil(() => h.events.filter((e) => e.type === 'turn_started').length === 2);
    await h.session.interrupt().done;
    // An interrupted goal turn pauses the goal (the user stopped it).
    await waitUntil(() => h.last()?.status === 'paused');
    await h.command('/goal clear');
    expect(h.goalEvents().at(-1)?.payload).toMatchObject({ action: 'cleared', target: null });
  });

  it('takes its summary title from the title sidecar, written nowhere (R9.10)', async () => {
    const titles = new FakeTitles();
    titles.result = {
      kind: 'reply',
      reply: titleReply({ title: 'Green test suite', applied: false, changed: false }),
    };
    titles.release();
    const h = harness(titles);
    await h.command('/goal get the whole test suite green again');
    await waitUntil(() => h.last()?.summaryTitle !== null && h.last() !== undefined);
    expect(h.last()?.summaryTitle).toBe('Green test suite');
    expect(titles.requests[0]).toMatchObject({
      input: 'get the whole test suite green again',
      writeBack: false,
    });
    const sources = h.events.flatMap((e) =>
      e.type === 'model_request' ? [e.payload.querySource] : [],
    );
    expect(sources).toContain('goal_summary_title');
    await h.command('/goal clear');
  });
});
