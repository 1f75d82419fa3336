import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RandomPortGenerator } from 'testcontainers';
import type { Capability, PostgresServer } from './postgres-server.ts';
import { waitForPostgres } from './wait-for-postgres.ts';

const run = promisify(execFile);

/** The newest Debian Postgres version installed (`/usr/lib/postgresql/<v>/bin`), if any. */
function debianVersions(): string[] {
  if (!existsSync('/usr/lib/postgresql')) return [];
  return readdirSync('/usr/lib/postgresql')
    .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
    .sort((a, b) => Number(b) - Number(a));
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Runs a Postgres tool as the `postgres` user when we are root (Postgres refuses root).
 * No pipes: a server started by `pg_ctl` would inherit them and keep us waiting forever;
 * its output goes to the cluster's log file instead.
 */
async function asPostgres(bin: string, args: string[]): Promise<void> {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const child = spawn(cmd, argv, { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${bin.split('/').pop()} ${args.join(' ')} exited with ${code}`);
}

/** Whether {@link startLocalPostgres} can work on this machine. */
export function localPostgresCapability(): Capability {
  const version = debianVersions()[0];
  if (!version) return { ok: false, reason: 'no /usr/lib/postgresql/<version>/bin/initdb found' };
  if (isRoot() && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) {
    return { ok: false, reason: 'running as root without runuser to drop to the postgres user' };
  }
  return { ok: true };
}

/**
 * Starts a throw-away Postgres cluster (initdb in a temporary directory, trust auth,
 * 127.0.0.1 on a free port) for a test file that restarts its server, so the restart
 * disturbs no other file. Used when no container engine is in use.
 */
export async function startLocalPostgres(): Promise<PostgresServer> {
  const version = debianVersions()[0];
  if (!version) throw new Error('no local Postgres installation (initdb) found');
  const bin = `/usr/lib/postgresql/${version}/bin`;
  const dir = await mkdtemp(join(tmpdir(), 'agentwire-pg-'));
  if (isRoot()) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await new RandomPortGenerator().generatePort();
  await asPostgres(`${bin}/initdb`, ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (...args: string[]) => asPostgres(`${bin}/pg_ctl`, ['-D', data, ...args]);
  const log = join(dir, 'log');
  await pgCtl('-l', log, '-o', options, '-w', 'start');
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    description: `temporary cluster ${data}`,
    async restart() {
      await pgCtl('-l', log, '-m', 'fast', '-w', 'restart');
      await waitForPostgres(adminUrl);
    },
    async stop() {
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The machine's own Debian cluster behind `url` as a restartable server
 * (`pg_ctlcluster --skip-systemctl-redirect <version> main restart`), or why not.
 * Restarting it cuts every other test file's connections: prefer a dedicated server.
 */
export function machinePostgres(url: string): PostgresServer | { ok: false; reason: string } {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) {
    return { ok: false, reason: `DATABASE_URL points at ${host}, not this machine` };
  }
  const version = debianVersions().find((v) => existsSync(`/etc/postgresql/${v}/main`));
  if (!version || !existsSync('/usr/bin/pg_ctlcluster')) {
    return { ok: false, reason: 'no Debian cluster (pg_ctlcluster, /etc/postgresql/<v>/main)' };
  }
  if (!isRoot()) return { ok: false, reason: 'pg_ctlcluster restart needs root' };
  return {
    adminUrl: url,
    description: `machine cluster ${version}/main`,
    async restart() {
      await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart'], {
        timeout: 60_000,
      });
      await waitForPostgres(url);
    },
    async stop() {},
  };
}
