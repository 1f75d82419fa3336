import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BusConnection, connectBus, deleteProvisioned } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { QUERY_MAIN } from '@agentwire/query/testing';
import {
  type ProjectionProcess,
  spawnProjection,
} from '../../../projection/src/spawn-projection.ts';
import {
  SERVICE_MAINS,
  type ServiceProcess,
  startServiceProcess,
} from '../../../runtime/src/testing/service-process.ts';

/** Entry point of the gateway process. */
const GATEWAY_MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** Where the stack runs: one test file's servers and prefix. */
interface StackEnvironment {
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly prefix: string;
}

/** Real service processes for end-to-end tests of frontends (gateway, CLI). */
export interface Stack {
  readonly workspace: string;
  readonly worker: ServiceProcess;
  readonly runtime: ServiceProcess;
  readonly projection: ProjectionProcess;
  /** The read side (`<prefix>.query.*`). */
  readonly query: ServiceProcess;
  /** Present when started with `gateway: true`. */
  readonly gateway?: ServiceProcess;
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly gatewayUrl?: string;
  /** SIGTERMs every process, waits for their exits, deletes the prefix's streams. */
  stop(): Promise<void>;
}

/** Port logged by a `<name> http listening` line. */
function listeningPort(lines: readonly string[], name: string): number {
  const line = lines.find((l) => l.includes(`${name} http listening`));
  const port = (JSON.parse(line ?? '{}') as { port?: number }).port;
  if (port === undefined) throw new Error(`${name} logged no port`);
  return port;
}

/**
 * Starts persistence worker, runtime, projection and query (and the gateway when asked) against
 * `env`, with a temporary workspace holding a README.md for the scripted tool scenarios.
 */
export async function startStack(
  env: StackEnvironment,
  options: {
    readonly gateway?: boolean;
    readonly gatewayEnv?: Record<string, string>;
    /** Added to one service's environment (its NATS user, say). */
    readonly serviceEnv?: Partial<
      Record<'worker' | 'runtime' | 'projection' | 'query', Readonly<Record<string, string>>>
    >;
  } = {},
): Promise<Stack> {
  const workspace = await mkdtemp(path.join(tmpdir(), 'aw-stack-ws-'));
  await writeFile(path.join(workspace, 'README.md'), '# stack workspace\n');
  const base = { NATS_URL: env.natsUrl, DATABASE_URL: env.databaseUrl, AW_PREFIX: env.prefix };
  const own = options.serviceEnv ?? {};
  const worker = await startServiceProcess(
    SERVICE_MAINS.persistenceWorker,
    { ...base, ...own.worker },
    {
      readyWhen: 'persistence-worker started',
    },
  );
  const [runtime, projection, query, gateway] = await Promise.all([
    startServiceProcess(
      SERVICE_MAINS.runtime,
      {
        ...base,
        AW_WORKSPACE_ROOT: workspace,
        AW_PERMISSION_TIMEOUT_MS: '20000',
        AW_MAX_PROMPT_BYTES: '4096',
        ...own.runtime,
      },
      { readyWhen: 'runtime accepting' },
    ),
    spawnProjection({ ...base, ...own.projection }),
    startServiceProcess(
      QUERY_MAIN,
      { ...base, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', AW_PG_POOL_SIZE: '2', ...own.query },
      { readyWhen: 'query serving' },
    ),
    options.gateway === true
      ? startServiceProcess(
          GATEWAY_MAIN,
          {
            NATS_URL: env.natsUrl,
            AW_PREFIX: env.prefix,
            HTTP_PORT: '0',
            ...options.gatewayEnv,
          },
          { readyWhen: 'gateway http listening' },
        )
      : undefined,
  ]);
  const gatewayUrl =
    gateway === undefined
      ? undefined
      : `http://127.0.0.1:${listeningPort(gateway.lines, 'gateway')}`;
  return {
    workspace,
    worker,
    runtime,
    projection,
    query,
    ...(gateway === undefined ? {} : { gateway }),
    ...(gatewayUrl === undefined ? {} : { gatewayUrl }),
    async stop() {
      gateway?.kill('SIGTERM');
      runtime.kill('SIGTERM');
      projection.child.kill('SIGTERM');
      query.kill('SIGTERM');
      await Promise.all([gateway?.exited, runtime.exited, projection.exited, query.exited]);
      worker.kill('SIGTERM');
      await worker.exited;
      await deleteStreams(env);
    },
  };
}

async function deleteStreams(env: StackEnvironment): Promise<void> {
  const bus: BusConnection = await connectBus({ servers: env.natsUrl, name: 'stack-cleanup' });
  const n = names(env.prefix);
  await deleteProvisioned(bus.jsm, n);
  for await (const info of bus.jsm.streams.list()) {
    if (info.config.name.startsWith(n.eventsStream.slice(0, -'EVENTS'.length))) {
      await bus.jsm.streams.delete(info.config.name).catch(() => undefined);
    }
  }
  await bus.close();
}
