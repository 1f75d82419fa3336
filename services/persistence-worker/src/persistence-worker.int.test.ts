import { deadLetterStream } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { canonicalDump } from '@agentwire/store/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerConfig } from './config.ts';
import { startWorkerRuntime } from './start-worker-runtime.ts';
import { disposeWithStreams } from './testing/dispose-with-streams.ts';
import { publishAll } from './testing/publish-work-item.ts';
import { waitForConsumersIdle } from './testing/wait-for-consumers.ts';
import { generateWorkload, shuffleWithinSessions, type WorkItem } from './testing/workload.ts';

const envs: TestEnvironment[] = [];

afterAll(async () => {
  for (const env of envs) await disposeWithStreams(env);
});

/** Runs the worker in-process over `deliveries` (each a list published in order) and dumps the store. */
async function deliver(
  deliveries: readonly (readonly WorkItem[])[],
  settings: Record<string, string> = {},
) {
  const env = await createTestEnvironment();
  envs.push(env);
  const config = WorkerConfig.parse({
    DATABASE_URL: env.databaseUrl,
    NATS_URL: env.natsUrl,
    AW_PREFIX: env.prefix,
    ...settings,
  });
  const runtime = await startWorkerRuntime({ config });
  try {
    const n = names(env.prefix);
    for (const [i, items] of deliveries.entries()) {
      await publishAll(runtime.bus.js, n, items, { msgIdSuffix: i === 0 ? '' : `:repeat${i}` });
    }
    await waitForConsumersIdle(runtime.bus.jsm, [
      [n.eventsStream, config.AW_EVENTS_DURABLE],
      [n.commandsStream, config.AW_COMMANDS_DURABLE],
    ]);
    const dlq = await runtime.bus.jsm.streams.info(deadLetterStream(n));
    expect(dlq.state.messages).toBe(0);
    return await canonicalDump(runtime.db);
  } finally {
    await runtime.stop();
  }
}

describe('persistence worker: order and duplicates change nothing (issue 4 "Done when" 1)', () => {
  const items = generateWorkload({ seed: 42, items: 5_000, sessions: 40 });

  it('in order, shuffled within each session, each twice, and in concurrent batches give identical dumps', {
    timeout: 120_000,
  }, async () => {
    expect(items.length).toBeGreaterThanOrEqual(5_000);
    const inOrder = await deliver([items]);
    const shuffled = await deliver([shuffleWithinSessions(items, 7)]);
    const twice = await deliver([items, shuffleWithinSessions(items, 8)]);
    // Small batches, four of each consumer committing at once, in whatever order they finish.
    const concurrent = await deliver([items], {
      AW_PULL_BATCH_SIZE: '32',
      AW_BATCHES_IN_FLIGHT: '4',
      AW_PG_POOL_SIZE: '8',
    });

    // The dump is not trivially equal: every table the worker writes has rows.
    expect(inOrder.sessions?.length).toBe(40);
    for (const table of ['messages', 'parts', 'session_entries', 'session_inputs'] as const) {
      expect(inOrder[table]?.length, table).toBeGreaterThan(100);
    }
    const statuses = new Set(inOrder.session_inputs?.map((r) => r.status));
    expect([...statuses].sort()).toEqual(['cancelled', 'discarded', 'promoted']);
    const toolParts = inOrder.parts?.filter((p) => p.type === 'tool') ?? [];
    expect(toolParts.length).toBeGreaterThan(0);
    expect(toolParts.every((p) => p.status === 'error')).toBe(true);

    expect(shuffled).toEqual(inOrder);
    expect(twice).toEqual(inOrder);
    expect(concurrent).toEqual(inOrder);
  });
});
