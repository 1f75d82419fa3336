import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as holdFor } from 'node:timers/promises';
import { RuntimeClient as BusRuntimeClient } from '@agentwire/bus';
import {
  duplicateNumbers,
  type RetainedMessage,
  readSessionMessages,
} from '@agentwire/bus/testing';
import type { WireDriver } from '@agentwire/runtime/testing';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Lease TTL of these runtimes: short, so that half of it is a pause a test can hold. */
const TTL_MS = 10_000;

let stack: RuntimeStack;
let client: WireDriver;
let frontend: BusRuntimeClient;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'split-brain-e2e',
      projection: true,
      runtimeEnv: {
        AW_LEASE_TTL_MS: String(TTL_MS),
        AW_PERMISSION_TIMEOUT_MS: '120000',
        AW_CONFIRM_TIMEOUT_MS: '60000',
      },
    },
    ['rtA', 'rtB'],
  );
  client = stack.client;
  frontend = new BusRuntimeClient(stack.bus, stack.names);
});

afterAll(async () => {
  await stack?.stop();
});

/** Opens sessions until `count` of them are owned by `owner`. */
async function sessionsOwnedBy(owner: string, count: number): Promise<string[]> {
  const owned: string[] = [];
  while (owned.length < count) {
    const reply = await client.open();
    if (!reply.ok) throw new Error(reply.error.message);
    if (reply.owner === owner) owned.push(String(reply.sessionId));
  }
  return owned;
}

/** What a session's stream says happened: takeovers, lost turns, numbering faults. */
function faultsOf(messages: readonly RetainedMessage[]) {
  const events = messages.flatMap((m) => (m.event === undefined ? [] : [m.event]));
  const numbers = events.map((e) => e.sequenceNumber);
  return {
    duplicates: [...duplicateNumbers(messages).keys()],
    outOfOrder: numbers.filter((n, i) => i > 0 && n <= (numbers[i - 1] ?? 0)).length,
    takeovers: events.filter((e) => e.type === 'session_resumed' && e.payload.reason === 'takeover')
      .length,
    runtimeLost: events.filter(
      (e) => e.type === 'turn_error' && e.payload.turnPhase === 'runtime_lost',
    ).length,
  };
}

const CLEAN = { duplicates: [], outOfOrder: 0, takeovers: 0, runtimeLost: 0 };

describe('no split brain (issue 21, R2.3, R13.1, docs/decisions/0110)', () => {
  it('an owner stopped for half its lease TTL keeps its sessions; every operation is answered', async () => {
    const sessions = await sessionsOwnedBy('rtA', 4);
    const owner = stack.runtimes.get('rtA');
    if (owner === undefined) throw new Error('rtA is not running');

    owner.kill('SIGSTOP');
    // Each prompt reaches rtA's own subscription (answered once it runs again) and the
    // queue-group fallback, where rtB finds a live lease whose owner does not answer.
    const replies = sessions.map((sid) =>
      client.op(sid, 'prompt', { text: 'while you were paused', wait: true }, 90_000),
    );
    await holdFor(TTL_MS / 2); // the fault itself: a pause of half the lease TTL
    owner.kill('SIGCONT');

    for (const reply of await Promise.all(replies)) {
      expect(reply).toMatchObject({ ok: true, status: 'complete' });
    }
    for (const sid of sessions) {
      expect(faultsOf(await readSessionMessages(stack.bus.js, stack.names, sid))).toEqual(CLEAN);
      const lease = await stack.bus.jsm.streams.getMessage(`KV_${stack.names.leaseBucket}`, {
        last_by_subj: `$KV.${stack.names.leaseBucket}.${sid}`,
      });
      expect(lease?.json<{ owner: string }>().owner).toBe('rtA');
    }
    const takeoverLines = [...stack.runtimes.values()]
      .flatMap((p) => p.lines)
      .filter((l) => l.includes('lease taken over'));
    expect(takeoverLines).toEqual([]);
  }, 180_000);

  it('200 sessions, 40 at a time, on two runtimes with the CPU saturated: no duplicate, no takeover, all consistent', async () => {
    const hogs = startCpuHogs(2);
    const opened: string[] = [];
    const replies: { sid: string; ok: boolean; status: unknown }[] = [];
    try {
      await inBatches(200, 40, async () => {
        const reply = await client.open();
        if (!reply.ok) throw new Error(reply.error.message);
        const sid = String(reply.sessionId);
        opened.push(sid);
        const follow = client.follow(sid, 0, { answer: 'allow' });
        const turn = await client.op(
          sid,
          'prompt',
          { text: '[scenario:two_tools] tidy up the workspace', wait: true },
          180_000,
        );
        await follow.stop();
        replies.push({ sid, ok: turn.ok, status: turn.ok ? turn.status : turn.error.code });
      });
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
    }
    expect(replies.filter((r) => !r.ok || r.status !== 'complete')).toEqual([]);
    expect(replies).toHaveLength(200);

    // Count against what was acknowledged: every session's stream, projection and rows.
    const problems: string[] = [];
    for (const sid of opened) {
      const messages = await readSessionMessages(stack.bus.js, stack.names, sid);
      const faults = faultsOf(messages);
      if (JSON.stringify(faults) !== JSON.stringify(CLEAN))
        problems.push(`${sid}: ${JSON.stringify(faults)}`);
      const lastEv = Math.max(
        ...messages.filter((m) => m.subject.endsWith('.ev')).map((m) => m.number ?? 0),
      );
      await waitUntil(
        async () => {
          const p = await frontend.projection(sid);
          return p.ok && p.asOfSeq === lastEv;
        },
        { timeoutMs: 60_000, what: `projection of ${sid} at ${lastEv}` },
      );
      const projection = await frontend.projection(sid);
      if (!projection.ok) throw new Error(projection.error.message);
      expect(projection.projection).toMatchObject({
        status: 'idle',
        turnCount: 1,
        pendingPermissions: [],
      });
      await waitUntil(
        async () => {
          const row = await stack.db
            .selectFrom('sessions')
            .select('last_sequence')
            .where('id', '=', sid)
            .executeTakeFirst();
          return Number(row?.last_sequence) === lastEv;
        },
        { timeoutMs: 60_000, what: `sessions.last_sequence of ${sid} at ${lastEv}` },
      );
      const parts = await stack.db
        .selectFrom('parts')
        .select('status')
        .where('session_id', '=', sid)
        .where('type', '=', 'tool')
        .execute();
      expect(parts.map((p) => p.status).sort()).toEqual(['completed', 'completed']);
    }
    expect(problems).toEqual([]);
    const takeoverLines = [...stack.runtimes.values()]
      .flatMap((p) => p.lines)
      .filter((l) => l.includes('lease taken over') || l.includes('lease lost'));
    expect(takeoverLines).toEqual([]);
  }, 600_000);
});

/** Runs `total` tasks, at most `width` at a time. */
async function inBatches(total: number, width: number, task: () => Promise<void>): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < total) {
      started += 1;
      await task();
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
}

/** Busy processes, one per core asked, competing with the services for the CPU. */
function startCpuHogs(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}
