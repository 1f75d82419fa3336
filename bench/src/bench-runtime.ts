import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BusConnection, connectBus, deleteProvisioned } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { createScratchDatabase, dropScratchDatabase } from '@agentwire/persistence-worker/testing';
import { RuntimeConfig, type StartedRuntime, startRuntime } from '@agentwire/runtime';
import { createDatabase, migrate } from '@agentwire/store';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
/** The server's administrative database: each bench runtime makes a database of its own there. */
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return quiet;
  },
};

/** An in-process runtime on its own prefix and workspace, for a bench group. */
export interface BenchRuntime {
  readonly prefix: string;
  readonly runtime: StartedRuntime;
  readonly bus: BusConnection;
  readonly db: ReturnType<typeof createDatabase>;
  /** The scratch database's URL, for the group's other services. */
  readonly databaseUrl: string;
  /**
   * Stops the runtime, runs `cleanUp` (the group's rows), and removes the streams, buckets
   * and workspace.
   */
  stop(cleanUp?: () => Promise<void>): Promise<void>;
}

/**
 * Starts a quiet runtime on a fresh prefix (`name` tags its NATS connection) and a scratch
 * database, dropped at `stop`: a run seeding and deleting 50,000 parts in a shared one left
 * them as dead rows that slowed every later run's reads (440 MB of them in `parts`).
 */
export async function startBenchRuntime(name: string): Promise<BenchRuntime> {
  const tag = randomBytes(4).toString('hex');
  const prefix = `awb${name.slice(0, 4)}${tag}`;
  const dbName = `aw_bench_${name.replace(/[^a-z0-9]/g, '_')}_${tag}`;
  const DATABASE_URL = await createScratchDatabase(ADMIN_URL, dbName);
  const workspace = await mkdtemp(path.join(tmpdir(), `aw-bench-${name}-`));
  const db = createDatabase(DATABASE_URL, { poolSize: 4 });
  await migrate(db);
  const config = RuntimeConfig.parse({
    NATS_URL,
    DATABASE_URL,
    AW_PREFIX: prefix,
    AW_WORKSPACE_ROOT: workspace,
  });
  const runtime = await startRuntime(config, quiet, { recordUsage: () => {} });
  const bus = await connectBus({ servers: NATS_URL, name: `bench-${name}`, noAsyncTraces: true });
  return {
    prefix,
    runtime,
    bus,
    db,
    databaseUrl: DATABASE_URL,
    async stop(cleanUp) {
      await runtime.stop();
      await cleanUp?.();
      await deleteProvisioned(bus.jsm, names(prefix));
      await bus.close();
      await db.destroy();
      await dropScratchDatabase(ADMIN_URL, dbName);
      await rm(workspace, { recursive: true, force: true });
    },
  };
}
