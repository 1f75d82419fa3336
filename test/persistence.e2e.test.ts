import { connectBus, deadLetterStream, deleteProvisioned } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import {
  consumerBacklogs,
  generateWorkload,
  publishAll,
  type WorkItem,
  waitForConsumersIdle,
} from '@agentwire/persistence-worker/testing';
import { createDatabase } from '@agentwire/store';
import { canonicalDump } from '@agentwire/store/testing';
import {
  createTestEnvironment,
  postgresRestartSupport,
  restartPostgres,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startWorkerProcess, type WorkerProcess } from './persistence-worker-process.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function setup(options: { dedicatedPostgres?: boolean } = {}) {
  const env = await createTestEnvironment(options);
  const bus = await connectBus({
    servers: env.natsUrl,
    name: 'persistence-e2e',
    noAsyncTraces: true,
  });
  const db = createDatabase(env.databaseUrl, { poolSize: 2 });
  const n = names(env.prefix);
  const workers: WorkerProcess[] = [];
  cleanups.push(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await deleteProvisioned(bus.jsm, n);
    await bus.close();
    await db.destroy();
    await env.dispose();
  });
  const workerEnv = {
    DATABASE_URL: env.databaseUrl,
    NATS_URL: env.natsUrl,
    AW_PREFIX: env.prefix,
    AW_ACK_WAIT_MS: '3000',
    LOG_LEVEL: 'info',
  };
  const start = async () => {
    const w = await startWorkerProcess(workerEnv);
    workers.push(w);
    return w;
  };
  const consumers = [
    [n.eventsStream, 'persistence-events'],
    [n.commandsStream, 'persistence-commands'],
  ] as const;
  return { env, bus, db, n, start, consumers };
}

/** What the workload must leave: every row once, in its final state. */
async function expectEveryRowOnce(
  db: ReturnType<typeof createDatabase>,
  items: readonly WorkItem[],
) {
  const messageIds = new Set<string>();
  const partIds = new Set<string>();
  const inputIds = new Set<string>();
  const entryKeys = new Set<string>();
  const sessions = new Set<string>();
  for (const item of items) {
    if (item.kind === 'command') {
      const c = item.command;
      sessions.add(c.sessionId);
      if ('message' in c) messageIds.add(c.message.id);
      if (c.kind === 'save_part') partIds.add(c.part.id);
      if (c.kind === 'save_user_message') for (const p of c.parts) partIds.add(p.id);
      continue;
    }
    const e = item.event;
    if (e.type === 'turn_steer_queued') inputIds.add(e.payload.pendingInputId);
    if (e.type === 'checkpoint_created' || e.type === 'rewind_triggered') entryKeys.add(e.id);
    if (e.type === 'target_completion_verification') {
      entryKeys.add(e.id);
      messageIds.add(`${e.id}-divider`);
      partIds.add(`${e.id}-divider-part`);
    }
    if (e.type === 'user_input_auto_resolution_updated')
      entryKeys.add(`auto:${e.sessionId}:${e.payload.interactionId}`);
  }
  const dump = await canonicalDump(db, {
    tables: ['sessions', 'messages', 'parts', 'session_inputs', 'session_entries'],
  });
  expect(dump.sessions?.length).toBe(sessions.size);
  expect(dump.messages?.length).toBe(messageIds.size);
  expect(dump.parts?.length).toBe(partIds.size);
  expect(dump.session_inputs?.length).toBe(inputIds.size);
  expect(dump.session_entries?.length).toBe(entryKeys.size);
  expect(dump.parts?.filter((p) => p.type === 'tool' && p.status !== 'error')).toEqual([]);
  expect(
    dump.session_inputs?.filter((r) => r.status === 'admitted' || r.admitted_seq === null),
  ).toEqual([]);
}

describe('persistence workers as processes (issue 4 "Done when" 2)', () => {
  it('two workers share 20,000 events and commands; one SIGKILLed halfway and restarted; every row once, nothing unacked', {
    timeout: 240_000,
  }, async () => {
    const { bus, db, n, start, consumers } = await setup();
    const items = generateWorkload({ seed: 2024, items: 20_000, sessions: 100 });
    const a = await start();
    const b = await start();
    const half = Math.floor(items.length / 2);
    await publishAll(bus.js, n, items.slice(0, half));
    // Kill A while it is busy with the first half.
    await waitUntil(
      async () => {
        const [events] = await consumerBacklogs(bus.jsm, consumers);
        return (events?.numPending ?? 0) < half / 2;
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'the workers to take in half of the first half' },
    );
    a.child.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    await publishAll(bus.js, n, items.slice(half));
    const restarted = await start();
    await waitForConsumersIdle(bus.jsm, consumers, { timeoutMs: 180_000, intervalMs: 250 });
    for (const backlog of await consumerBacklogs(bus.jsm, consumers)) {
      expect(backlog).toMatchObject({ numPending: 0, numAckPending: 0 });
    }
    expect((await bus.jsm.streams.info(deadLetterStream(n))).state.messages).toBe(0);
    await expectEveryRowOnce(db, items);

    // SIGTERM drains and exits 0.
    b.child.kill('SIGTERM');
    restarted.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(await restarted.exited).toBe(0);
    expect(b.lines.some((l) => l.includes('persistence-worker stopped'))).toBe(true);
  });
});

describe('a worker killed inside its transaction (issue 9)', () => {
  it('SIGKILL while pg_stat_activity shows its transaction open: every row once, nothing unacked', {
    timeout: 240_000,
  }, async () => {
    const { bus, db, n, start, consumers } = await setup();
    const items = generateWorkload({ seed: 909, items: 12_000, sessions: 60, sessionPrefix: 'tx' });
    const victim = await start();
    const survivor = await start();
    const publishing = publishAll(bus.js, n, items);
    // Not between batches: only once Postgres shows the victim's transaction in progress.
    await waitUntil(
      async () => {
        const open = await sql<{ c: number }>`select count(*)::int as c from pg_stat_activity
          where application_name = ${`persistence-worker-${victim.pid}`}
            and xact_start is not null and state <> 'idle'`.execute(db);
        return (open.rows[0]?.c ?? 0) > 0;
      },
      { timeoutMs: 60_000, intervalMs: 5, what: "the victim's open transaction" },
    );
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    await publishing;
    await waitForConsumersIdle(bus.jsm, consumers, { timeoutMs: 180_000, intervalMs: 250 });
    for (const backlog of await consumerBacklogs(bus.jsm, consumers)) {
      expect(backlog).toMatchObject({ numPending: 0, numAckPending: 0 });
    }
    expect((await bus.jsm.streams.info(deadLetterStream(n))).state.messages).toBe(0);
    await expectEveryRowOnce(db, items);
    survivor.child.kill('SIGTERM');
    expect(await survivor.exited).toBe(0);
  });
});

const restart = postgresRestartSupport();

describe.skipIf(!restart.ok)('Postgres restarted mid-stream (issue 4 "Done when" 3)', () => {
  it('Postgres restarted mid-stream: nothing lost once it is back', {
    timeout: 120_000,
  }, async () => {
    const { env, bus, db, n, start, consumers } = await setup({ dedicatedPostgres: true });
    const items = generateWorkload({ seed: 77, items: 6_000, sessions: 30, sessionPrefix: 'pg' });
    const worker = await start();
    const third = Math.floor(items.length / 3);
    await publishAll(bus.js, n, items.slice(0, third));
    const publishing = publishAll(bus.js, n, items.slice(third));
    await restartPostgres(env as TestEnvironment);
    await publishing;
    // A worker that crashes on the restart (an unhandled pg client 'error') fails at once.
    const crashed = worker.exited.then((code) => {
      throw new Error(
        `worker exited (${String(code)}) during the outage:\n${worker.lines.slice(-15).join('\n')}`,
      );
    });
    await Promise.race([
      crashed,
      waitForConsumersIdle(bus.jsm, consumers, { timeoutMs: 90_000, intervalMs: 250 }).catch(
        (error: unknown) => {
          throw new Error(
            `${String(error)}\nworker output (last 15 lines):\n${worker.lines.slice(-15).join('\n')}`,
          );
        },
      ),
    ]);
    crashed.catch(() => {});
    expect((await bus.jsm.streams.info(deadLetterStream(n))).state.messages).toBe(0);
    await expectEveryRowOnce(db, items);
    expect(worker.lines.some((l) => l.includes('retryable store failure'))).toBe(true);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
