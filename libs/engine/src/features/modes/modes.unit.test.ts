import type { SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import type { FeatureContext } from '../../kernel/feature.ts';
import { countingIds } from '../../testing/fake-ports.ts';
import { memoryTools } from '../../testing/memory-tools.ts';
import { createSessionHarness } from '../../testing/session-harness.ts';
import { MODE_POLICY, modes } from './modes.ts';

const tools = new Map(memoryTools().map((t) => [t.name, t]));
const tool = (name: string) => {
  const t = tools.get(name);
  if (t === undefined) throw new Error(name);
  return t;
};

describe('what each mode lets a tool do (R16.2, docs/decisions/0223)', () => {
  it.each([
    ['plan', ['run', 'run', 'deny', 'deny']],
    ['build', ['run', 'run', 'ask', 'ask']],
    ['edit', ['run', 'run', 'run', 'ask']],
    ['yolo', ['run', 'run', 'run', 'run']],
    ['auto', ['run', 'run', 'run', 'ask']],
  ] as const)('%s: read_file, list_dir, write_file, run_command', (mode, expected) => {
    const decided = ['read_file', 'list_dir', 'write_file', 'run_command'].map(
      (name) => MODE_POLICY[mode](tool(name)).kind,
    );
    expect(decided).toEqual(expected);
  });

  it('auto asks for a high-risk tool whatever its effect, and runs a medium-risk command', () => {
    const write = tool('write_file');
    expect(MODE_POLICY.auto({ ...write, riskLevel: 'critical' }).kind).toBe('ask');
    const command = tool('run_command');
    expect(MODE_POLICY.auto({ ...command, riskLevel: 'medium' }).kind).toBe('run');
  });
});

function harness(recovered: SessionEvent[] = []) {
  const h = createSessionHarness({
    start: { persisted: false, title: null, turnCount: 0, history: [], featureEvents: recovered },
  });
  const asked = () => h.events.filter((e) => e.type === 'permission_requested');
  return { ...h, asked };
}

describe('/mode and set_mode', () => {
  it('switches, emits session_mode_changed once, and refuses an unknown mode', async () => {
    const { session, events } = harness();
    expect(await session.submit('/mode')).toMatchObject({ result: { mode: 'build' } });
    expect(await session.runCommand('mode', 'plan')).toEqual({
      mode: 'plan',
      previousMode: 'build',
      changed: true,
    });
    expect(await session.runCommand('mode', 'plan')).toMatchObject({ changed: false });
    await expect(session.submit('/mode turbo')).rejects.toMatchObject({
      code: 'invalid_command',
      detail: { known: ['plan', 'build', 'edit', 'yolo', 'auto'] },
    });
    expect(events.filter((e) => e.type === 'session_mode_changed').map((e) => e.payload)).toEqual([
      { mode: 'plan', previousMode: 'build', source: 'command' },
    ]);
  });

  it('plan refuses the write without asking; the turn goes on', async () => {
    const { session, events, asked } = harness();
    await session.runCommand('mode', 'plan');
    const admitted = await session.submit('[scenario:two_tools] go');
    if (!admitted.ok || !('done' in admitted)) throw new Error('not started');
    await admitted.done;
    expect(asked()).toEqual([]);
    const error = events.find((e) => e.type === 'tool_call_error');
    expect(error?.payload).toMatchObject({
      toolName: 'write_file',
      error: { code: 'not_allowed_in_mode' },
    });
    expect(events.at(-1)?.type).toBe('turn_complete');
  });

  it('edit runs the write without asking; yolo runs a command without asking', async () => {
    const { session, events, asked } = harness();
    await session.runCommand('mode', 'edit');
    const write = await session.submit('[scenario:two_tools] go');
    if (!write.ok || !('done' in write)) throw new Error('not started');
    await write.done;
    expect(asked()).toEqual([]);
    expect(events.filter((e) => e.type === 'tool_call_result')).toHaveLength(2);
    await session.runCommand('mode', 'yolo');
    const command = await session.submit('[scenario:run_command] go');
    if (!command.ok || !('done' in command)) throw new Error('not started');
    await command.done;
    expect(asked()).toEqual([]);
  });

  it('a mode recovered from the stream governs the next turn; a request already asked keeps waiting', async () => {
    const recovered = {
      type: 'session_mode_changed',
      payload: { mode: 'edit', previousMode: 'build', source: 'command' },
    } as unknown as SessionEvent;
    const { session, asked } = harness([recovered]);
    expect(await session.submit('/mode')).toMatchObject({ result: { mode: 'edit' } });
    const command = await session.submit('[scenario:run_command] go');
    if (!command.ok || !('done' in command)) throw new Error('not started');
    await waitUntil(() => asked().length === 1, { timeoutMs: 2_000, intervalMs: 2 });
    // Switching to yolo while asked: the question stays; it still needs its answer.
    await session.runCommand('mode', 'yolo');
    expect(session.permissions.pendingRequestIds()).toHaveLength(1);
    const [requestId = ''] = session.permissions.pendingRequestIds();
    session.answerPermission(requestId, { decision: 'allow' });
    await command.done;
  });

  it("plan mode's exit_plan_mode asks with the plan; approved, the session builds and the write asks", async () => {
    const { session, events, asked } = harness();
    await session.runCommand('mode', 'plan');
    const turn = await session.submit('[scenario:plan_approval] plan it');
    if (!turn.ok || !('done' in turn)) throw new Error('not started');
    for (const n of [1, 2]) {
      await waitUntil(() => asked().length === n, { timeoutMs: 2_000, intervalMs: 2 });
      const [requestId = ''] = session.permissions.pendingRequestIds();
      session.answerPermission(requestId, { decision: 'allow' });
    }
    await turn.done;
    expect(asked().map((e) => e.payload)).toMatchObject([
      {
        toolName: 'exit_plan_mode',
        input: { plan: '1. Write notes.txt with a greeting.' },
        reason:
          'approve this plan to leave plan mode for build mode:\n1. Write notes.txt with a greeting.',
      },
      { toolName: 'write_file' },
    ]);
    expect(events.filter((e) => e.type === 'session_mode_changed').map((e) => e.payload)).toEqual([
      { mode: 'plan', previousMode: 'build', source: 'command' },
      { mode: 'build', previousMode: 'plan', source: 'tool' },
    ]);
    const results = events.filter((e) => e.type === 'tool_call_result');
    expect(results.map((e) => e.payload.toolName)).toEqual(['exit_plan_mode', 'write_file']);
    expect(await session.submit('/mode')).toMatchObject({ result: { mode: 'build' } });
  });

  it('a declined plan keeps plan mode, and the write after it is refused without asking', async () => {
    const { session, events, asked } = harness();
    await session.runCommand('mode', 'plan');
    const turn = await session.submit('[scenario:plan_approval] plan it');
    if (!turn.ok || !('done' in turn)) throw new Error('not started');
    await waitUntil(() => asked().length === 1, { timeoutMs: 2_000, intervalMs: 2 });
    const [requestId = ''] = session.permissions.pendingRequestIds();
    session.answerPermission(requestId, { decision: 'deny' });
    await turn.done;
    expect(asked()).toHaveLength(1);
    expect(events.filter((e) => e.type === 'session_mode_changed')).toHaveLength(1);
    const errors = events.filter((e) => e.type === 'tool_call_error').map((e) => e.payload);
    expect(errors).toMatchObject([
      { toolName: 'exit_plan_mode' },
      { toolName: 'write_file', error: { code: 'not_allowed_in_mode' } },
    ]);
    expect(await session.submit('/mode')).toMatchObject({ result: { mode: 'plan' } });
  });

  it('outside plan mode the turn does not offer exit_plan_mode: a call to it is an unknown tool', async () => {
    const { session, events } = harness();
    const turn = await session.submit('[scenario:plan_approval] no plan mode');
    if (!turn.ok || !('done' in turn)) throw new Error('not started');
    const pending = turn.done;
    await waitUntil(() => session.permissions.pendingRequestIds().length === 1, {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    const [requestId = ''] = session.permissions.pendingRequestIds();
    session.answerPermission(requestId, { decision: 'allow' });
    await pending;
    const errors = events.filter((e) => e.type === 'tool_call_error').map((e) => e.payload);
    expect(errors).toMatchObject([{ toolName: 'exit_plan_mode', error: { code: 'unknown_tool' } }]);
    expect(events.filter((e) => e.type === 'session_mode_changed')).toEqual([]);
  });

  it('refuses an empty or oversized plan with a typed tool error, and the mode stays plan', async () => {
    const emitted: string[] = [];
    const recovered = [
      {
        type: 'session_mode_changed',
        payload: { mode: 'plan', previousMode: 'build', source: 'command' },
      } as unknown as SessionEvent,
    ];
    const hooks = modes.attach?.({
      sessionId: 's1',
      recovered,
      emit: async (type) => {
        emitted.push(type);
        return {} as never;
      },
      models: [],
      checkpoints: undefined,
      tree: undefined,
      replacements: undefined,
      clock: { now: () => 0 },
      ids: countingIds(),
      currentModel: () => {
        throw new Error('no model here');
      },
      conversation: {} as FeatureContext['conversation'],
      turnRunning: () => false,
      wake: () => undefined,
      summaryTitle: async () => undefined,
    });
    const [exit] = hooks?.tools?.() ?? [];
    if (exit === undefined) throw new Error('plan mode offers no exit_plan_mode');
    const signal = new AbortController().signal;
    for (const input of [
      { plan: '' },
      { plan: '   ' },
      { plan: 7 },
      null,
      { plan: 'x'.repeat(20_001) },
    ]) {
      await expect(exit.run(input, signal), JSON.stringify(input)).rejects.toMatchObject({
        name: 'ToolError',
        code: 'invalid_input',
      });
    }
    expect(emitted).toEqual([]);
    expect(hooks?.tools?.()).toEqual([exit]);
  });

  it('declares the event it recovers from', () => {
    expect(modes.recoversFrom).toEqual(['session_mode_changed']);
  });
});
