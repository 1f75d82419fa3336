import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BusConnection, connectBus, deleteProvisioned } from '@agentwire/bus';
import { type Names, names as namesOf } from '@agentwire/contracts';
import {
  startWorkerRuntime,
  WorkerConfig,
  type WorkerRuntime,
} from '@agentwire/persistence-worker';
import { createDatabase, migrate } from '@agentwire/store';
import { noopLogger } from '@agentwire/telemetry';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { RuntimeConfig } from '../config.ts';
import type { RuntimeHostOptions } from '../nats/runtime-host.ts';
import { type StartedRuntime, startRuntime } from '../start-runtime.ts';

/** Options of {@link startInProcessRuntimes}. */
export interface InProcessRuntimesOptions<Ids extends readonly string[]> {
  /** Names the temporary workspace (`aw-<tag>-`) and the bus connection (`<tag>-int`). */
  readonly tag: string;
  /** One runtime is started per id, in order, as its `AW_INSTANCE_ID`. */
  readonly instanceIds: Ids;
  /** Files written into the shared workspace before the runtimes start, by relative path. */
  readonly workspaceFiles?: Readonly<Record<string, string>>;
  /** Added to every runtime's configuration. */
  readonly env?: Readonly<Record<string, string>>;
  /** Wraps the host options of the runtime with that instance id (fault injection). */
  readonly wrapHost?: Readonly<Record<string, (options: RuntimeHostOptions) => RuntimeHostOptions>>;
}

/** A test file's runtimes, running in the test process, and the servers they use. */
export interface InProcessRuntimes<Ids extends readonly string[] = readonly string[]> {
  readonly env: TestEnvironment;
  readonly names: Names;
  /** The started runtimes, in the order of `instanceIds`. */
  readonly runtimes: { readonly [K in keyof Ids]: StartedRuntime };
  /** The test's own connection, for requests and checks on the streams. */
  readonly bus: BusConnection;
  /** Stops the runtimes in order, deletes the streams, closes the bus, disposes the servers. */
  stop(): Promise<void>;
}

/**
 * Starts, for one integration test file, a fresh test environment (migrated database and
 * subject prefix), a temporary workspace shared by the runtimes, an in-process persistence
 * worker, one in-process runtime per id of `instanceIds`, and a bus connection. When a start fails, what had started is
 * stopped again before the error is thrown.
 */
export async function startInProcessRuntimes<const Ids extends readonly string[]>(
  options: InProcessRuntimesOptions<Ids>,
): Promise<InProcessRuntimes<Ids>> {
  const env = await createTestEnvironment();
  const names = namesOf(env.prefix);
  const started: StartedRuntime[] = [];
  let bus: BusConnection | undefined;
  let worker: WorkerRuntime | undefined;
  const stop = async () => {
    for (const runtime of started) await runtime.stop();
    await worker?.stop();
    if (bus !== undefined) {
      await deleteProvisioned(bus.jsm, names);
      await bus.close();
    }
    await env.dispose();
  };
  try {
    const db = createDatabase(env.databaseUrl, { poolSize: 1 });
    await migrate(db);
    await db.destroy();
    const workspace = await mkdtemp(path.join(tmpdir(), `aw-${options.tag}-`));
    for (const [file, text] of Object.entries(options.workspaceFiles ?? {})) {
      await writeFile(path.join(workspace, file), text);
    }
    // The runtimes' writes wait for its confirmations: a turn runs only on a committed
    // user message (issue 9).
    worker = await startWorkerRuntime({
      config: WorkerConfig.parse({
        NATS_URL: env.natsUrl,
        DATABASE_URL: env.databaseUrl,
        AW_PREFIX: env.prefix,
      }),
    });
    const usage = { recordUsage: () => {} };
    for (const instanceId of options.instanceIds) {
      const config = RuntimeConfig.parse({
        NATS_URL: env.natsUrl,
        DATABASE_URL: env.databaseUrl,
        AW_PREFIX: env.prefix,
        AW_WORKSPACE_ROOT: workspace,
        AW_INSTANCE_ID: instanceId,
        ...options.env,
      });
      started.push(
        await startRuntime(config, noopLogger, usage, { wrapHost: options.wrapHost?.[instanceId] }),
      );
    }
    bus = await connectBus({ servers: env.natsUrl, name: `${options.tag}-int` });
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  const runtimes = started as unknown as InProcessRuntimes<Ids>['runtimes'];
  return { env, names, runtimes, bus, stop };
}
