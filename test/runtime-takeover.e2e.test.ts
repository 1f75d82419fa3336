import type { WireDriver } from '@agentwire/runtime/testing';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import type { createDatabase } from '@agentwire/store';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: RuntimeStack;
let client: WireDriver;
let db: ReturnType<typeof createDatabase>;

beforeAll(async () => {
  stack = await startRuntimeStack(
    { name: 'runtime-takeover-e2e', runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000' } },
    ['rtA', 'rtB'],
  );
  ({ client, db } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

describe('session ownership across runtime processes (R13, flows 5 and 6)', () => {
  it('two runtimes race to open one session: one owns it, the other answers with the owner', async () => {
    const sid = `race-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 16 }, () => client.open(sid)));
    const owners = new Set(replies.flatMap((r) => (r.ok ? [String(r.owner)] : [])));
    expect(owners.size).toBe(1);
    const [owner] = [...owners];
    const conflicts = replies.flatMap((r) => (r.ok ? [] : [r.error]));
    expect(conflicts.length).toBeGreaterThan(0);
    for (const error of conflicts) {
      expect(error).toMatchObject({ code: 'lease_conflict', detail: { owner } });
    }
  });

  it('after SIGKILL mid-turn, another instance takes over: runtime_lost, numbering continues, the new turn runs', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const owner = String(opened.owner);
    const follow = client.follow(sid, 0);
    const first = await client.op(sid, 'prompt', { text: '[scenario:run_command] run it' });
    expect(first).toMatchObject({ ok: true });
    await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 10_000,
      what: 'permission request',
    });

    await stack.killRuntime(owner);

    const second = await client.runTurn(sid, 'carry on', follow);
    expect(second).toMatchObject({ ok: true, status: 'complete' });
    await follow.stop();

    const types = follow.events.map((e) => e.type);
    const lostAt = types.indexOf('turn_error');
    expect(follow.events[lostAt]?.payload).toMatchObject({
      error: { code: 'runtime_lost' },
      turnPhase: 'runtime_lost',
    });
    // The waiting request, the open call and its batch are settled before the turn (0120).
    expect(types.slice(lostAt - 3, lostAt)).toEqual([
      'permission_denied',
      'tool_call_error',
      'tool_batch_complete',
    ]);
    expect(follow.events[lostAt - 3]?.payload).toMatchObject({ reason: 'runtime_lost' });
    expect(follow.events[lostAt - 2]?.payload).toMatchObject({
      toolName: 'run_command',
      error: { code: 'runtime_lost' },
    });
    expect(types.slice(lostAt + 1, lostAt + 5)).toEqual([
      'turn_input_received',
      'turn_steer_queued',
      'session_input_promoted',
      'turn_started',
    ]);
    const numbers = follow.events.map((e) => e.sequenceNumber);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));

    await waitUntil(
      async () => {
        const part = await db
          .selectFrom('parts')
          .select('status')
          .where('session_id', '=', sid)
          .where('type', '=', 'tool')
          .executeTakeFirst();
        return part?.status === 'error';
      },
      { timeoutMs: 10_000, what: 'tool part written as error' },
    );
  });
});
