import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BusConnection, connectBus, deleteProvisioned } from '@agentwire/bus';
import { type Names, names as namesOf } from '@agentwire/contracts';
import { createDatabase } from '@agentwire/store';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { pingSubject } from '../nats/runtime-host.ts';
import { RuntimeClient } from './runtime-client.ts';
import { SERVICE_MAINS, type ServiceProcess, startServiceProcess } from './service-process.ts';

/** Options of {@link startRuntimeStack}. */
export interface RuntimeStackOptions {
  /** Names the bus connection and the temporary workspace. */
  readonly name: string;
  /** Added to every runtime's environment (limits, title generation, ...). */
  readonly runtimeEnv?: Readonly<Record<string, string>>;
  /** Also start a title sidecar process (flow 4). */
  readonly titleSidecar?: boolean;
  /** How many title sidecar processes to start (default 1 with `titleSidecar`, else 0). */
  readonly titleSidecars?: number;
  /** How many persistence worker processes to start (default 1). */
  readonly workers?: number;
  /** How many projection processes to start (default 0). */
  readonly projections?: number;
}

/** One test file's runtime processes, their servers and a test frontend. */
export interface RuntimeStack {
  readonly env: TestEnvironment;
  readonly names: Names;
  /** The runtimes' `AW_WORKSPACE_ROOT`, holding a README.md for the tool scenarios. */
  readonly workspace: string;
  readonly bus: BusConnection;
  readonly client: RuntimeClient;
  readonly db: ReturnType<typeof createDatabase>;
  /** The first persistence worker. */
  readonly worker: ServiceProcess;
  readonly workers: readonly ServiceProcess[];
  /** The first title sidecar, if any. */
  readonly sidecar: ServiceProcess | undefined;
  readonly sidecars: readonly ServiceProcess[];
  readonly projections: readonly ServiceProcess[];
  /** Runtime processes by instance id; a test may kill one and delete it. */
  readonly runtimes: Map<string, ServiceProcess>;
  /** Starts a runtime process with instance id `instanceId` and records it. */
  startRuntime(instanceId: string): Promise<ServiceProcess>;
  /** Starts one more persistence worker (it joins the durable consumers). */
  startWorker(): Promise<ServiceProcess>;
  /** Starts one more title sidecar (it joins the queue group). */
  startSidecar(): Promise<ServiceProcess>;
  /**
   * SIGKILLs a runtime (a crash), forgets it, and waits until its liveness ping has no
   * responders: until the server dropped the dead connection, a queue-group request may
   * still be routed to it (a real frontend retries).
   */
  killRuntime(instanceId: string): Promise<void>;
  /** SIGTERMs every process, waits for their exits, deletes the streams, closes everything. */
  stop(): Promise<void>;
}

/**
 * Starts, for one end-to-end test file, a fresh test environment (database and subject
 * prefix), persistence workers, optionally title sidecars and projections, then the runtimes named
 * by `instanceIds`; the bus, a {@link RuntimeClient} and a store handle come with it.
 */
export async function startRuntimeStack(
  options: RuntimeStackOptions,
  instanceIds: readonly string[],
): Promise<RuntimeStack> {
  const env = await createTestEnvironment();
  const names = namesOf(env.prefix);
  const workspace = await mkdtemp(path.join(tmpdir(), `aw-${options.name}-ws-`));
  await writeFile(path.join(workspace, 'README.md'), `# ${options.name} workspace\n`);
  const common = { NATS_URL: env.natsUrl, DATABASE_URL: env.databaseUrl, AW_PREFIX: env.prefix };
  const sidecarCount = options.titleSidecars ?? (options.titleSidecar === true ? 1 : 0);
  const workers: ServiceProcess[] = [];
  const sidecars: ServiceProcess[] = [];
  const projections: ServiceProcess[] = [];
  const starter = (main: string, readyWhen: string, into: ServiceProcess[]) => async () => {
    const proc = await startServiceProcess(main, common, { readyWhen });
    into.push(proc);
    return proc;
  };
  const startWorker = starter(
    SERVICE_MAINS.persistenceWorker,
    'persistence-worker started',
    workers,
  );
  const startSidecar = starter(SERVICE_MAINS.titleSidecar, 'title sidecar serving', sidecars);
  const startProjection = starter(
    SERVICE_MAINS.projection,
    'projection http listening',
    projections,
  );
  const times = (n: number, start: () => Promise<ServiceProcess>) =>
    Array.from({ length: n }, () => start());
  await Promise.all([
    ...times(Math.max(1, options.workers ?? 1), startWorker),
    ...times(sidecarCount, startSidecar),
    ...times(options.projections ?? 0, startProjection),
  ]);
  const [worker] = workers;
  if (worker === undefined) throw new Error('a runtime stack needs at least one worker');
  const sidecar = sidecars[0];
  const runtimes = new Map<string, ServiceProcess>();
  const startRuntime = async (instanceId: string) => {
    const proc = await startServiceProcess(
      SERVICE_MAINS.runtime,
      {
        ...common,
        AW_WORKSPACE_ROOT: workspace,
        AW_INSTANCE_ID: instanceId,
        ...options.runtimeEnv,
      },
      { readyWhen: 'runtime accepting' },
    );
    runtimes.set(instanceId, proc);
    return proc;
  };
  try {
    await Promise.all(instanceIds.map(startRuntime));
  } catch (err) {
    for (const proc of [...runtimes.values(), ...workers, ...sidecars, ...projections]) {
      proc.kill('SIGKILL');
    }
    await env.dispose();
    throw err;
  }
  const bus = await connectBus({ servers: env.natsUrl, name: options.name });
  const db = createDatabase(env.databaseUrl, { poolSize: 2 });
  const stop = async () => {
    const procs = [...runtimes.values(), ...workers, ...sidecars, ...projections];
    for (const proc of procs) proc.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    await deleteProvisioned(bus.jsm, names);
    await bus.close();
    await db.destroy();
    await env.dispose();
  };
  const killRuntime = async (instanceId: string) => {
    const victim = runtimes.get(instanceId);
    if (victim === undefined) throw new Error(`unknown runtime ${instanceId}`);
    victim.kill('SIGKILL');
    await victim.exited;
    runtimes.delete(instanceId);
    await waitUntil(
      () =>
        bus.nc.request(pingSubject(names.prefix, instanceId), '', { timeout: 200 }).then(
          () => false,
          (err: unknown) => /no responders/i.test(String(err)),
        ),
      { timeoutMs: 10_000, what: 'the dead owner to disappear' },
    );
  };
  const client = new RuntimeClient(bus, names);
  return {
    env,
    names,
    workspace,
    bus,
    client,
    db,
    worker,
    workers,
    sidecar,
    sidecars,
    projections,
    runtimes,
    startRuntime,
    startWorker,
    startSidecar,
    killRuntime,
    stop,
  };
}
