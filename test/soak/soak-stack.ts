import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as holdFor } from 'node:timers/promises';
import { SERVICE_MAINS, type ServiceProcess } from '@agentwire/runtime/testing';
import {
  createTestEnvironment,
  freePort,
  type NatsServerProcess,
  restartPostgres,
  startNatsServer,
  startServiceProcess,
  type TestEnvironment,
} from '@agentwire/testing';

/** The services of a soak, by name: two runtimes, two workers, a projection, a sidecar, a gateway. */
const SERVICES = {
  rtA: 'runtime',
  rtB: 'runtime',
  w1: 'persistenceWorker',
  w2: 'persistenceWorker',
  projection: 'projection',
  sidecar: 'titleSidecar',
  gateway: 'gateway',
} as const;
type ServiceName = keyof typeof SERVICES;

const READY: Record<(typeof SERVICES)[ServiceName], string> = {
  runtime: 'runtime accepting',
  persistenceWorker: 'persistence-worker started',
  projection: 'projection http listening',
  titleSidecar: 'title sidecar serving',
  gateway: 'gateway http listening',
};

/**
 * A whole system of its own for a soak: its own `nats-server` and Postgres (so both can be
 * restarted), every service a process that a fault may kill and that comes back, and
 * busy loops that keep the cores saturated.
 */
export interface SoakStack {
  readonly env: TestEnvironment;
  readonly nats: NatsServerProcess;
  /** `http://127.0.0.1:<port>` of the gateway: the same port after each restart. */
  readonly gatewayUrl: string;
  /** Lines a fault logged, and processes that exited although no fault killed them. */
  readonly faults: string[];
  readonly crashes: string[];
  /** One fault, chosen from `kinds`, with the process restarted after it. */
  injectFault(kinds: readonly FaultKind[]): Promise<void>;
  /** Stops the busy loops (the load is over). */
  quiet(): void;
  /** Writes every process's log (dead ones too) into `dir`. */
  saveLogs(dir: string): Promise<void>;
  stop(): Promise<void>;
}

/** What a fault does. */
export type FaultKind =
  | 'kill_runtime'
  | 'stop_runtime'
  | 'kill_worker'
  | 'stop_worker'
  | 'kill_projection'
  | 'kill_sidecar'
  | 'kill_gateway'
  | 'restart_postgres'
  | 'restart_broker';

export const ALL_FAULTS: readonly FaultKind[] = [
  'kill_runtime',
  'stop_runtime',
  'kill_worker',
  'stop_worker',
  'kill_projection',
  'kill_sidecar',
  'kill_gateway',
  'restart_postgres',
  'restart_broker',
];

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;

/** Starts a {@link SoakStack}; `leaseTtlMs` is the runtimes' lease TTL. */
export async function startSoakStack(options: {
  readonly leaseTtlMs: number;
  readonly hogs: number;
}): Promise<SoakStack> {
  const nats = await startNatsServer();
  const env = await createTestEnvironment({ dedicatedPostgres: true });
  const workspace = await mkdtemp(path.join(tmpdir(), 'aw-soak-ws-'));
  await writeFile(path.join(workspace, 'README.md'), '# soak workspace\n');
  const common = { NATS_URL: nats.url, DATABASE_URL: env.databaseUrl, AW_PREFIX: env.prefix };
  const gatewayPort = await freePort();
  const live = new Map<ServiceName, ServiceProcess>();
  const every: [ServiceName, ServiceProcess][] = [];
  const killed = new Set<ServiceProcess>();
  const faults: string[] = [];
  const crashes: string[] = [];
  const note = (line: string) => faults.push(`${new Date().toISOString()} ${line}`);

  const start = async (name: ServiceName): Promise<void> => {
    const kind = SERVICES[name];
    const extra: Record<string, string> =
      kind === 'runtime'
        ? {
            AW_WORKSPACE_ROOT: workspace,
            AW_INSTANCE_ID: name,
            AW_LEASE_TTL_MS: String(options.leaseTtlMs),
            AW_TITLE_GENERATION: 'on',
            AW_SCRIPTED_CHUNK_DELAY_MS: '5',
          }
        : kind === 'projection'
          ? { HTTP_PORT: '0' }
          : kind === 'gateway'
            ? { HTTP_PORT: String(gatewayPort), AW_GATEWAY_RATE_LIMIT: '1000000' }
            : {};
    const proc = await startServiceProcess(
      SERVICE_MAINS[kind],
      { ...common, ...extra },
      { readyWhen: READY[kind], timeoutMs: 60_000 },
    );
    live.set(name, proc);
    every.push([name, proc]);
    void proc.exited.then((code) => {
      if (!killed.has(proc)) crashes.push(`${name} exited by itself (${code})`);
    });
  };
  const kill = async (name: ServiceName): Promise<void> => {
    const proc = live.get(name);
    if (proc === undefined) return;
    note(`SIGKILL ${name}`);
    killed.add(proc);
    proc.kill('SIGKILL');
    await proc.exited;
    await holdFor(1_000);
    await start(name);
  };
  const pause = async (name: ServiceName, ms: number): Promise<void> => {
    const proc = live.get(name);
    if (proc === undefined) return;
    note(`SIGSTOP ${name} for ${Math.round(ms)} ms`);
    proc.kill('SIGSTOP');
    await holdFor(ms);
    proc.kill('SIGCONT');
  };
  const actions: Record<FaultKind, () => Promise<void>> = {
    kill_runtime: () => kill(pick(['rtA', 'rtB'] as const)),
    // Up to just under the lease TTL, and past it: a takeover, then a stale owner resuming.
    stop_runtime: () => pause(pick(['rtA', 'rtB'] as const), 2_000 + Math.random() * 4_000),
    kill_worker: () => kill(pick(['w1', 'w2'] as const)),
    stop_worker: () => pause(pick(['w1', 'w2'] as const), 3_000),
    kill_projection: () => kill('projection'),
    kill_sidecar: () => kill('sidecar'),
    kill_gateway: () => kill('gateway'),
    restart_postgres: async () => {
      note('Postgres restart');
      await restartPostgres(env);
    },
    restart_broker: async () => {
      note('broker restart');
      await nats.restart();
    },
  };

  await Promise.all((Object.keys(SERVICES) as ServiceName[]).map(start));
  const hogs: ChildProcess[] = Array.from({ length: options.hogs }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return {
    env,
    nats,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    faults,
    crashes,
    async injectFault(kinds) {
      const kind = pick(kinds);
      await actions[kind]().catch((err: unknown) => note(`${kind} failed: ${String(err)}`));
    },
    quiet() {
      for (const hog of hogs) hog.kill('SIGKILL');
    },
    async saveLogs(dir) {
      await mkdir(dir, { recursive: true });
      await Promise.all(
        every.map(([name, proc], i) =>
          writeFile(
            path.join(dir, `${String(i).padStart(2, '0')}-${name}.log`),
            proc.lines.join('\n'),
          ),
        ),
      );
    },
    async stop() {
      for (const hog of hogs) hog.kill('SIGKILL');
      const procs = [...live.values()];
      for (const proc of procs) {
        killed.add(proc);
        proc.kill('SIGTERM');
      }
      await Promise.all(procs.map((p) => p.exited));
      await env.dispose();
      await nats.dispose();
    },
  };
}
