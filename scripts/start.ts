/**
 * `npm start`: starts the whole system on this machine and shows it working.
 *
 * 1. checks that NATS (JetStream) and Postgres answer at NATS_URL / DATABASE_URL (defaults:
 *    the local servers), and creates the `agentwire` database when it is missing;
 * 2. starts each service as its own process (persistence worker, projection, title sidecar,
 *    runtime, gateway), logs to `.agentwire/logs/<service>.log`, and waits for `/readyz`;
 * 3. runs `agentwire demo`: a scripted session with streamed text and tool calls, one of
 *    which asks permission, followed live, then the session's projection;
 * 4. keeps the services running until Ctrl-C (or exits after the demo with `--demo-only`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demoOnly = process.argv.includes('--demo-only');
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/agentwire';
const prefix = process.env.AW_PREFIX ?? 'aw';
/** The gateway's public port (its `HTTP_PORT`); every other service takes an ephemeral one. */
const gatewayPort = process.env.HTTP_PORT ?? '8080';
const stateDir = path.join(root, '.agentwire');
const logDir = path.join(stateDir, 'logs');
const workspace = process.env.AW_WORKSPACE_ROOT ?? path.join(stateDir, 'workspace');

interface Service {
  readonly name: string;
  readonly main: string;
  readonly env?: Record<string, string>;
}

const services: readonly Service[] = [
  { name: 'persistence-worker', main: 'services/persistence-worker/src/main.ts' },
  { name: 'projection', main: 'services/projection/src/main.ts' },
  { name: 'title-sidecar', main: 'services/title-sidecar/src/main.ts' },
  { name: 'runtime', main: 'services/runtime/src/main.ts' },
  {
    name: 'gateway',
    main: 'services/gateway/src/main.ts',
    env: { HTTP_PORT: gatewayPort },
  },
];

const children: ChildProcess[] = [];

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function checkServers(): Promise<void> {
  const nc = await connect({ servers: natsUrl, reconnect: false, timeout: 3_000 }).catch(
    (err: unknown) => {
      throw new Error(
        `NATS is not reachable at ${natsUrl} (${String(err)}); start it or set NATS_URL`,
      );
    },
  );
  await nc.close();
  const target = new URL(databaseUrl);
  const dbName = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect().catch((err: unknown) => {
    throw new Error(
      `Postgres is not reachable at ${admin.host} (${String(err)}); start it or set DATABASE_URL`,
    );
  });
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(dbName)}`);
      say(`created database ${dbName}`);
    }
  } finally {
    await client.end();
  }
}

/** Starts one service and resolves with its HTTP port once `/readyz` answers 200. */
async function startService(service: Service): Promise<number> {
  const log = createWriteStream(path.join(logDir, `${service.name}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [path.join(root, service.main)], {
    cwd: root,
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      AW_PREFIX: prefix,
      AW_WORKSPACE_ROOT: workspace,
      HTTP_PORT: '0',
      AW_TITLE_GENERATION: 'on',
      ...service.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => reject(new Error(`${service.name} did not start in 30 s`)),
      30_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /"port":(\d+)[^\n]*http listening/.exec(buffer);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`${service.name} exited (${code}); see .agentwire/logs/${service.name}.log`),
      );
    });
  });
  for (let attempt = 0; attempt < 150; attempt++) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return port;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${service.name} not ready after 30 s; see .agentwire/logs/${service.name}.log`);
}

function runDemo(): Promise<number> {
  const child = spawn(process.execPath, [path.join(root, 'services/cli/src/main.ts'), 'demo'], {
    cwd: root,
    env: { ...process.env, NATS_URL: natsUrl, AW_PREFIX: prefix },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

async function stopAll(): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

async function main(): Promise<void> {
  mkdirSync(logDir, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const readme = path.join(workspace, 'README.md');
  if (!existsSync(readme))
    writeFileSync(readme, '# demo workspace\n\nThe agent may read and write here.\n');
  say(`agentwire: NATS ${natsUrl}, Postgres ${new URL(databaseUrl).host}, prefix ${prefix}`);
  await checkServers();
  for (const service of services) {
    const port = await startService(service);
    say(`  ${service.name.padEnd(20)} ready  (health on http://127.0.0.1:${port})`);
  }
  say('\nrunning a demo session (scripted model, tools, a permission request):\n');
  const demoExit = await runDemo();
  if (demoOnly || demoExit !== 0) {
    await stopAll();
    process.exit(demoExit);
  }
  say(`\nagentwire is running. Gateway: http://127.0.0.1:${gatewayPort}`);
  say('  follow a session:  node services/cli/src/main.ts follow <sessionId>');
  say(`  or over HTTP:      curl -N http://127.0.0.1:${gatewayPort}/sessions/<id>/events`);
  say('Logs in .agentwire/logs/. Ctrl-C stops every service.');
  const stop = () => {
    say('\nstopping...');
    void stopAll().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch(async (err: unknown) => {
  process.stderr.write(
    `agentwire start failed: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  await stopAll();
  process.exit(1);
});
