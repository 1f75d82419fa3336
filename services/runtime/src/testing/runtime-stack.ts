import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BusConnection, connectBus, deleteProvisioned } from '@agentwire/bus';
import { type Names, names as namesOf } from '@agentwire/contracts';
import { createDatabase } from '@agentwire/store';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { SERVICE_MAINS, type ServiceProcess, startServiceProcess } from './service-process.ts';
import { WireDriver } from './wire-driver.ts';

/** Options of {@link startRuntimeStack}. */
interface RuntimeStackOptions {
  /** Names the bus connection and the temporary workspace. */
  readonly name: string;
  /** Added to every runtime's environment (limits, title generation, ...). */
  readonly runtimeEnv?: Readonly<Record<string, string>>;
  /** Also start a title sidecar process (flow 4). */
  readonly titleSidecar?: boolean;
  /** Also start a projection process (flow 3). */
  readonly projection?: boolean;
  /** Also start a gateway process (HTTP and SSE, in front of the runtimes). */
  readonly gateway?: boolean;
}

/** One test file's runtime processes, their servers and a test frontend. */
export interface RuntimeStack {
  readonly env: TestEnvironment;
  readonly names: Names;
  /** The runtimes' `AW_WORKSPACE_ROOT`, holding a README.md for the tool scenarios. */
  readonly workspace: string;
  readonly bus: BusConnection;
  readonly client: WireDriver;
  readonly db: ReturnType<typeof createDatabase>;
  readonly worker: ServiceProcess;
  readonly sidecar: ServiceProcess | undefined;
  readonly projection: ServiceProcess | undefined;
  /** `http://127.0.0.1:<port>` of the gateway process, when started. */
  readonly gatewayUrl: string | undefined;
  /** Runtime processes by instance id; a test may kill one and delete it. */
  readonly runtimes: Map<string, ServiceProcess>;
  /** Starts a runtime process with instance id `instanceId` and records it. */
  startRuntime(instanceId: string): Promise<ServiceProcess>;
  /** Every persistence worker: the first, then those of {@link startWorker}. */
  readonly workers: readonly ServiceProcess[];
  /** Every title sidecar: the first (with `titleSidecar`), then those of {@link startSidecar}. */
  readonly sidecars: readonly ServiceProcess[];
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
 * prefix), a persistence worker, optionally a title sidecar, a projection and a gateway,
 * and then the runtimes named by `instanceIds`; the bus, a {@link WireDriver} and a
 * store handle come with it.
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
  const [worker, sidecar, projection, gateway] = await Promise.all([
    startServiceProcess(SERVICE_MAINS.persistenceWorker, common, {
      readyWhen: 'persistence-worker started',
    }),
    options.titleSidecar === true
      ? startServiceProcess(SERVICE_MAINS.titleSidecar, common, {
          readyWhen: 'title sidecar serving',
        })
      : undefined,
    options.projection === true
      ? startServiceProcess(
          SERVICE_MAINS.projection,
          { ...common, HTTP_PORT: '0' },
          { readyWhen: 'projection http listening' },
        )
      : undefined,
    options.gateway === true
      ? startServiceProcess(
          SERVICE_MAINS.gateway,
          { NATS_URL: env.natsUrl, AW_PREFIX: env.prefix, HTTP_PORT: '0' },
          { readyWhen: 'gateway http listening' },
        )
      : undefined,
  ]);
  const workers = [worker];
  const sidecars = sidecar === undefined ? [] : [sidecar];
  /** Processes started after the stack: stopped first, then the stack. */
  const added: ServiceProcess[] = [];
  const startWorker = async () => {
    const proc = await startServiceProcess(SERVICE_MAINS.persistenceWorker, common, {
      readyWhen: 'persistence-worker started',
    });
    workers.push(proc);
    added.push(proc);
    return proc;
  };
  const startSidecar = async () => {
    const proc = await startServiceProcess(SERVICE_MAINS.titleSidecar, common, {
      readyWhen: 'title sidecar serving',
    });
    sidecars.push(proc);
    added.push(proc);
    return proc;
  };
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
    for (const proc of [...runtimes.values(), worker, sidecar, projection, gateway]) {
      proc?.kill('SIGKILL');
    }
    await env.dispose();
    throw err;
  }
  const bus = await connectBus({ servers: env.natsUrl, name: options.name });
  const db = createDatabase(env.databaseUrl, { poolSize: 2 });
  const stop = async () => {
    const procs = [
      ...runtimes.values(),
      worker,
      ...(sidecar === undefined ? [] : [sidecar]),
      ...(projection === undefined ? [] : [projection]),
      ...(gateway === undefined ? [] : [gateway]),
    ];
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
        bus.nc.request(names.runtimeInstancePing(instanceId), '', { timeout: 200 }).then(
          () => false,
          (err: unknown) => /no responders/i.test(String(err)),
        ),
      { timeoutMs: 10_000, what: 'the dead owner to disappear' },
    );
  };
  const client = new WireDriver(bus, names);
  return {
    env,
    names,
    workspace,
    bus,
    client,
    db,
    worker,
    sidecar,
    projection,
    gatewayUrl: gateway?.port === undefined ? undefined : `http://127.0.0.1:${gateway.port}`,
    runtimes,
    startRuntime,
    workers,
    sidecars,
    startWorker,
    startSidecar,
    killRuntime,
    async stop() {
      for (const proc of added) proc.kill('SIGTERM');
      await Promise.all(added.map((p) => p.exited));
      await stop();
    },
  };
}
