/**
 * `npm start`: starts the whole system on this machine and shows it working.
 *
 * 1. finds NATS (JetStream) and Postgres: `NATS_URL` / `DATABASE_URL` when set, else the
 *    servers at the default local addresses, else servers of its own: a local
 *    `nats-server` (data in `.agentwire/nats`) and an embedded Postgres from the npm
 *    registry (data in `.agentwire/pg`), kept between runs (`--fresh` wipes them);
 *    creates the `agentwire` database when it is missing;
 * 2. starts each service as its own process (persistence worker, projection, title sidecar,
 *    query, runtime, gateway), logs to `.agentwire/logs/<service>.log`, and waits for `/readyz`;
 * 3. runs `agentwire demo`: a scripted session with streamed text and tool calls, one of
 *    which asks permission, followed live, then the session's projection;
 * 4. keeps the services running until Ctrl-C (or exits after the demo with `--demo-only`),
 *    then stops exactly what it started: the services, then its own Postgres and NATS.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWebBuilt } from '@agentwire/web/ensure-built';
import pg from 'pg';
import { type ResolvedPostgres, resolvePostgres } from './start/embedded-postgres.ts';
import { NatsServerMissingError, type ResolvedNats, resolveNats } from './start/local-nats.ts';
import {
  runDemo,
  type Service,
  type ServiceContext,
  startService,
  stopChildren,
} from './start/service-processes.ts';
import { readStartOptions, type StartOptions } from './start/start-options.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const options = readStartOptions(root, process.argv.slice(2), process.env);

const services: readonly Service[] = [
  { name: 'persistence-worker', main: 'services/persistence-worker/src/main.ts' },
  { name: 'projection', main: 'services/projection/src/main.ts' },
  { name: 'title-sidecar', main: 'services/title-sidecar/src/main.ts' },
  { name: 'query', main: 'services/query/src/main.ts' },
  { name: 'runtime', main: 'services/runtime/src/main.ts' },
  {
    name: 'gateway',
    main: 'services/gateway/src/main.ts',
    env: { HTTP_PORT: options.gatewayPort },
  },
];

const children: ChildProcess[] = [];
let nats: ResolvedNats | undefined;
let postgres: ResolvedPostgres | undefined;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Services first (they drain through NATS and Postgres), then the servers started here. */
async function stopAll(): Promise<void> {
  await stopChildren(children);
  await postgres?.stop?.();
  await nats?.started?.stop();
}

async function prepare(o: StartOptions): Promise<void> {
  mkdirSync(o.logDir, { recursive: true });
  mkdirSync(o.workspace, { recursive: true });
  const readme = path.join(o.workspace, 'README.md');
  if (!existsSync(readme))
    writeFileSync(readme, '# demo workspace\n\nThe agent may read and write here.\n');
  if (o.fresh) {
    await Promise.all(
      ['nats', 'pg', 'pg-password'].map((d) =>
        rm(path.join(o.stateDir, d), { recursive: true, force: true }),
      ),
    );
    say(`--fresh: wiped the data of the servers npm start runs itself (${o.stateDir})`);
  }
}

async function earlierSessions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM sessions');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

function describeServers(n: ResolvedNats, p: ResolvedPostgres): string {
  const natsText = n.started
    ? `NATS started here (pid ${n.started.pid}, ${n.url}, data ${path.join(options.stateDir, 'nats')})`
    : `NATS ${n.url}`;
  const pgHost = new URL(p.url).host;
  const pgText = p.stop
    ? `embedded Postgres started here (pid ${p.pid}, ${pgHost}, data ${path.join(options.stateDir, 'pg')})`
    : `Postgres ${pgHost}`;
  return `agentwire: ${natsText}, ${pgText}, prefix ${options.prefix}`;
}

async function main(): Promise<void> {
  await prepare(options);
  nats = await resolveNats(options);
  postgres = await resolvePostgres(options);
  say(describeServers(nats, postgres));
  const ctx: ServiceContext = {
    root,
    logDir: options.logDir,
    env: {
      NATS_URL: nats.url,
      DATABASE_URL: postgres.url,
      AW_PREFIX: options.prefix,
      AW_WORKSPACE_ROOT: options.workspace,
      AW_TITLE_GENERATION: 'on',
    },
  };
  // The gateway serves the web client's build (apps/web/dist): build it when it is stale.
  const web = await ensureWebBuilt();
  say(
    `  web client           ${web.built ? 'built' : 'up to date'} (${path.relative(root, web.dir)})`,
  );
  let gatewayPort = 0;
  for (const service of services) {
    const started = await startService(ctx, service, children);
    if (service.name === 'gateway') gatewayPort = started.port;
    say(
      `  ${service.name.padEnd(20)} ready  (pid ${started.child.pid}, health on http://127.0.0.1:${started.port})`,
    );
  }
  say(`${await earlierSessions(postgres.url)} sessions from earlier runs`);
  say('\nrunning a demo session (scripted model, tools, a permission request):\n');
  const demoExit = await runDemo(ctx);
  if (options.demoOnly || demoExit !== 0) {
    await stopAll();
    process.exit(demoExit);
  }
  say(`\nagentwire is running. Gateway: http://127.0.0.1:${gatewayPort}`);
  say(`  open the web client: http://127.0.0.1:${gatewayPort}/`);
  say('  follow a session:  node services/cli/src/main.ts follow <sessionId>');
  say(`  or over HTTP:      curl -N http://127.0.0.1:${gatewayPort}/sessions/<id>/events`);
  say(`Logs in ${options.logDir}. Ctrl-C stops every service and the servers started here.`);
}

/** Ctrl-C (or SIGTERM) at any point, start-up included, stops what was started, once. */
function stopOnSignal(): void {
  const stop = () => {
    say('\nstopping...');
    void stopAll().then(() => {
      say('stopped what npm start started');
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

stopOnSignal();

main().catch(async (err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof NatsServerMissingError) process.stderr.write(`\n${message}\n\n`);
  else process.stderr.write(`agentwire start failed: ${message}\n`);
  await stopAll().catch(() => {});
  process.exit(1);
});
