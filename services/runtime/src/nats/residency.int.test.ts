import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BusConnection, connectBus } from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import { createDatabase, migrate } from '@agentwire/store';
import { noopLogger } from '@agentwire/telemetry';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeConfig } from '../config.ts';
import { type StartedRuntime, startRuntime } from '../start-runtime.ts';

let env: TestEnvironment;
let bus: BusConnection;
let rt: StartedRuntime;

beforeAll(async () => {
  env = await createTestEnvironment();
  const db = createDatabase(env.databaseUrl, { poolSize: 1 });
  await migrate(db);
  await db.destroy();
  const config = RuntimeConfig.parse({
    NATS_URL: env.natsUrl,
    DATABASE_URL: env.databaseUrl,
    AW_PREFIX: env.prefix,
    AW_WORKSPACE_ROOT: await mkdtemp(path.join(tmpdir(), 'aw-residency-')),
    AW_INSTANCE_ID: 'residency',
    AW_CONFIRM_TIMEOUT_MS: '100',
    AW_RESIDENT_TARGET: '0',
    AW_RESIDENT_HIGH_WATER: '0',
    AW_RESIDENT_IDLE_MS: '60000',
  });
  rt = await startRuntime(config, noopLogger, { recordUsage: () => {} });
  bus = await connectBus({ servers: env.natsUrl, name: 'residency-int' });
});

afterAll(async () => {
  await rt?.stop();
  const n = namesOf(env.prefix);
  for (const stream of [n.eventsStream, n.commandsStream, `KV_${n.leaseBucket}`]) {
    await bus?.jsm.streams.delete(stream).catch(() => undefined);
  }
  await bus?.close();
  await env?.dispose();
});

describe('residency (R11)', () => {
  it('reclaims only persisted, idle sessions, releases their lease, and cold-recovers them with numbering intact', async () => {
    const host = rt.host;
    await host.activate('persisted-one', 'open');
    await host.activate('never-prompted', 'open');
    await host.resident('persisted-one')?.prompt('hello').done;

    // A running turn is in-flight work: not reclaimable (R11.2).
    const slow = host.resident('persisted-one')?.prompt('[scenario:run_command] wait for me');
    expect(await host.rebalance(Date.now() + 3_600_000)).toEqual([]);
    host.resident('persisted-one')?.interrupt();
    await slow?.done;
    const lastAtReclaim = host.residentEmitter('persisted-one')?.appender.latestSequence ?? 0;
    expect(lastAtReclaim).toBeGreaterThan(0);

    // Above high water (0): the LRU phase reclaims what is eligible; never-prompted is not persisted.
    expect(await host.rebalance(Date.now())).toEqual(['persisted-one']);
    expect(host.residentSessionIds).toEqual(['never-prompted']);
    expect(host.leases.held.has('persisted-one')).toBe(false);

    await host.activate('persisted-one', 'op');
    const emitter = host.residentEmitter('persisted-one');
    expect(emitter?.appender.latestSequence).toBe(lastAtReclaim);
    const outcome = await host.resident('persisted-one')?.prompt('after reclaim').done;
    expect(outcome?.status).toBe('complete');
  });
});
