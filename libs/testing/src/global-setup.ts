import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { getContainerRuntimeClient } from 'testcontainers';
import type { TestProject } from 'vitest/node';
import { checkServers } from './check-servers.ts';
import { startNatsContainer, startPostgresContainer } from './container-servers.ts';
import { startControlChannel } from './control-channel.ts';
import { localPostgresCapability, machinePostgres, startLocalPostgres } from './local-postgres.ts';
import type { Capability, PostgresServer } from './postgres-server.ts';
import type { HarnessInfo } from './provided-context.ts';
import { readServerSettings, type ServerSettings } from './server-settings.ts';
import { redact } from './server-unreachable-error.ts';

/** The run's one log line, on stderr: global setup runs in vitest's main process. */
function say(line: string): void {
  process.stderr.write(`[agentwire/testing] ${line}\n`);
}

/** Resolves when the container engine answers; rejects with why not (bounded wait). */
async function engineAnswers(settings: ServerSettings): Promise<void> {
  if (!settings.dockerHost)
    throw new Error('no DOCKER_HOST, /var/run/docker.sock or podman socket');
  Object.assign(process.env, settings.containerEnv);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${settings.dockerHost} did not answer in 15 s`)),
      15_000,
    );
  });
  try {
    await Promise.race([getContainerRuntimeClient(), timeout]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`container engine at ${settings.dockerHost} unreachable (${message})`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

interface Servers {
  readonly databaseUrl: string;
  readonly natsUrl: string;
  readonly info: Omit<HarnessInfo, 'controlUrl' | 'runId'>;
  readonly shared: PostgresServer | { ok: false; reason: string };
  readonly dedicated: (() => Promise<PostgresServer>) | { ok: false; reason: string };
  stop(): Promise<void>;
}

async function containerServers(settings: ServerSettings): Promise<Servers> {
  const started = Date.now();
  const [pgResult, natsResult] = await Promise.allSettled([
    startPostgresContainer(settings.pgImage),
    startNatsContainer(settings.natsImage),
  ]);
  if (pgResult.status === 'rejected' || natsResult.status === 'rejected') {
    if (pgResult.status === 'fulfilled') await pgResult.value.stop().catch(() => {});
    if (natsResult.status === 'fulfilled') await natsResult.value.container.stop().catch(() => {});
    const failed = pgResult.status === 'rejected' ? pgResult : natsResult;
    throw (failed as PromiseRejectedResult).reason;
  }
  const pg = pgResult.value;
  const nats = natsResult.value;
  say(
    `servers: containers via ${settings.dockerHost} (${settings.dockerHostSource}): ` +
      `Postgres ${settings.pgImage} at ${redact(pg.adminUrl)}, NATS ${settings.natsImage} at ` +
      `${nats.url}, started in ${Date.now() - started} ms`,
  );
  const ok: Capability = { ok: true };
  return {
    databaseUrl: pg.adminUrl,
    natsUrl: nats.url,
    info: { mode: 'containers', dedicatedPostgres: ok, sharedPostgresRestart: ok },
    shared: pg,
    dedicated: () => startPostgresContainer(settings.pgImage),
    async stop() {
      const t0 = Date.now();
      await Promise.allSettled([pg.stop(), nats.container.stop({ timeout: 0 })]);
      say(`servers: containers stopped in ${Date.now() - t0} ms`);
    },
  };
}

async function localServers(settings: ServerSettings, why: string): Promise<Servers> {
  await checkServers(settings, why);
  say(
    `servers: local fallback (${why}): Postgres at ${redact(settings.databaseUrl)}, ` +
      `NATS at ${settings.natsUrl}`,
  );
  const dedicatedCapability = localPostgresCapability();
  const shared = machinePostgres(settings.databaseUrl);
  return {
    databaseUrl: settings.databaseUrl,
    natsUrl: settings.natsUrl,
    info: {
      mode: 'local',
      dedicatedPostgres: dedicatedCapability,
      sharedPostgresRestart: 'restart' in shared ? { ok: true } : shared,
    },
    shared,
    dedicated: dedicatedCapability.ok ? startLocalPostgres : dedicatedCapability,
    async stop() {},
  };
}

async function findServers(settings: ServerSettings): Promise<Servers> {
  if (settings.mode === 'local') return localServers(settings, 'AGENTWIRE_TEST_SERVERS=local');
  if (settings.mode === 'containers') {
    await engineAnswers(settings);
    return containerServers(settings);
  }
  try {
    await engineAnswers(settings);
  } catch (error) {
    return localServers(settings, error instanceof Error ? error.message : String(error));
  }
  try {
    return await containerServers(settings);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return localServers(settings, `containers failed to start: ${message.split('\n')[0]}`);
  }
}

/**
 * Vitest global setup of the `int` project (DESIGN.md "Tests against real servers"): one
 * Postgres and one NATS (JetStream) for the whole run, handed to test files with
 * `provide`. `AGENTWIRE_TEST_SERVERS` = `containers` (Testcontainers, or fail), `local`
 * (`DATABASE_URL` / `NATS_URL`, checked) or `auto` (containers when an engine answers,
 * else local). Logs one line saying which.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const settings = readServerSettings(process.env, existsSync);
  const servers = await findServers(settings);
  const control = await startControlChannel({
    shared: servers.shared,
    dedicated: servers.dedicated,
  });
  project.provide('databaseUrl', servers.databaseUrl);
  project.provide('natsUrl', servers.natsUrl);
  project.provide('agentwireHarness', {
    ...servers.info,
    controlUrl: control.url,
    runId: randomBytes(6).toString('hex'),
  });
  return async () => {
    await control.close();
    await servers.stop();
  };
}
