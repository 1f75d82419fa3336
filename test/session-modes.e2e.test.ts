import type { SessionEvent } from '@agentwire/contracts';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Session modes against real runtime processes (issue 13 item 2, R16.2, docs/decisions/0223):
 * a write attempt in each mode is refused, asked or let through as the mode says, the
 * projection shows the mode, and the mode survives the owner's SIGKILL.
 */
let stack: RuntimeStack;
let client: WireDriver;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'session-modes-e2e',
      projection: true,
      runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000' },
    },
    ['rtA', 'rtB'],
  );
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** How the write of a `two_tools` turn went: `refused`, `asked` (then allowed) or `ran`. */
function writeOutcome(events: readonly SessionEvent[], turnId: string): string {
  const turn = events.filter((e) => e.turnId === turnId);
  const asked = turn.some((e) => e.type === 'permission_requested');
  const refused = turn.some(
    (e) =>
      e.type === 'tool_call_error' &&
      (e.payload as { error: { code?: string } }).error.code === 'not_allowed_in_mode',
  );
  const ran = turn.some(
    (e) =>
      e.type === 'tool_call_result' &&
      (e.payload as { toolName: string }).toolName === 'write_file',
  );
  return refused ? 'refused' : asked && ran ? 'asked' : ran ? 'ran' : 'nothing';
}

describe('session modes (R16.2)', () => {
  it('each mode refuses, asks for or runs a write as it says, and the projection shows it', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0, { answer: 'allow' });
    const outcomes: Record<string, string> = {};
    for (const mode of ['plan', 'build', 'edit', 'yolo', 'auto'] as const) {
      const set = await client.op(sid, 'set_mode', { mode });
      expect(set, mode).toMatchObject({ ok: true, mode });
      const turn = await client.runTurn(sid, `[scenario:two_tools] in ${mode}`, follow);
      expect(turn, mode).toMatchObject({ ok: true, status: 'complete' });
      outcomes[mode] = writeOutcome(follow.events, String(turn.ok ? turn.turnId : ''));
    }
    expect(outcomes).toEqual({
      plan: 'refused',
      build: 'asked',
      edit: 'ran',
      yolo: 'ran',
      auto: 'ran',
    });
    const bad = await client.op(sid, 'set_mode', { mode: 'turbo' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const changes = follow.events.filter((e) => e.type === 'session_mode_changed');
    expect(changes.map((e) => (e.payload as { mode: string }).mode)).toEqual([
      'plan',
      'build',
      'edit',
      'yolo',
      'auto',
    ]);
    await waitUntil(
      async () => {
        const p = await client.request(stack.names.projectionGet, { sessionId: sid });
        return p.ok && (p.projection as { mode?: string } | undefined)?.mode === 'auto';
      },
      { what: 'the mode in the projection' },
    );
    await follow.stop();
  });

  it("plan mode's exit_plan_mode: an approved plan moves the session to build, where the write asks", async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0, { answer: 'allow' });
    expect(await client.op(sid, 'set_mode', { mode: 'plan' })).toMatchObject({ ok: true });
    const turn = await client.runTurn(sid, '[scenario:plan_approval] plan, then build', follow);
    expect(turn).toMatchObject({ ok: true, status: 'complete' });
    const turnId = String(turn.ok ? turn.turnId : '');
    const asked = follow.events.filter(
      (e) => e.type === 'permission_requested' && e.turnId === turnId,
    );
    expect(asked.map((e) => (e.payload as { toolName: string }).toolName)).toEqual([
      'exit_plan_mode',
      'write_file',
    ]);
    const changes = follow.events.filter((e) => e.type === 'session_mode_changed');
    expect(changes.map((e) => e.payload)).toEqual([
      { mode: 'plan', previousMode: 'build', source: 'command' },
      { mode: 'build', previousMode: 'plan', source: 'tool' },
    ]);
    expect(writeOutcome(follow.events, turnId)).toBe('asked');
    await waitUntil(
      async () => {
        const p = await client.request(stack.names.projectionGet, { sessionId: sid });
        return p.ok && (p.projection as { mode?: string } | undefined)?.mode === 'build';
      },
      { what: 'build mode in the projection' },
    );
    await follow.stop();
  });

  it("the mode survives its owner's SIGKILL: the next owner recovers it from the stream", async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0, { answer: 'allow' });
    expect(await client.op(sid, 'set_mode', { mode: 'plan' })).toMatchObject({ ok: true });
    expect(await client.runTurn(sid, 'hello', follow)).toMatchObject({ ok: true });
    await stack.killRuntime(String(opened.owner));
    const turn = await client.runTurn(sid, '[scenario:two_tools] after the crash', follow, {
      inputId: `in-${sid}-after`,
    });
    expect(turn).toMatchObject({ ok: true, status: 'complete' });
    expect(writeOutcome(follow.events, String(turn.ok ? turn.turnId : ''))).toBe('refused');
    expect(await client.op(sid, 'prompt', { text: '/mode' })).toMatchObject({
      ok: true,
      result: { mode: 'plan' },
    });
    await follow.stop();
  });
});
