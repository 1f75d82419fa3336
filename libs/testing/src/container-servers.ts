import { PostgreSqlContainer } from '@testcontainers/postgresql';
import {
  GenericContainer,
  getContainerRuntimeClient,
  PullPolicy,
  RandomPortGenerator,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import type { PostgresServer } from './postgres-server.ts';
import { waitForPostgres } from './wait-for-postgres.ts';

const PG_READY = /database system is ready to accept connections/;
const PG_PASSWORD = 'agentwire';

/**
 * Labels every harness container with the process that owns it, so that
 * `scripts/containers.sh cleanup` removes only containers whose run has died, never those
 * of a run still going on the same machine.
 */
const OWNER_LABELS = { 'org.agentwire.test-owner-pid': String(process.pid) };

/** Locally built images (`localhost/...`) are never pulled: no registry has them. */
function pullPolicyFor(image: string) {
  return image.startsWith('localhost/') ? PullPolicy.neverPull() : PullPolicy.defaultPolicy();
}

/**
 * Starts a Postgres container. The host port is fixed at creation so that a restart keeps
 * it (Docker may otherwise pick a new one). The wait is the ready log line seen twice (set-up
 * server, then the real one): Podman 4.3 cannot run the module's health check here.
 * `fsync=off` only speeds tests; a container kill still loses nothing committed.
 */
export async function startPostgresContainer(image: string): Promise<PostgresServer> {
  const hostPort = await new RandomPortGenerator().generatePort();
  const started = await new PostgreSqlContainer(image)
    .withUsername('postgres')
    .withPassword(PG_PASSWORD)
    .withDatabase('postgres')
    .withLabels(OWNER_LABELS)
    .withExposedPorts({ container: 5432, host: hostPort })
    .withWaitStrategy(Wait.forLogMessage(PG_READY, 2))
    .withPullPolicy(pullPolicyFor(image))
    .withCommand(['postgres', '-c', 'fsync=off', '-c', 'max_connections=300'])
    .withStartupTimeout(120_000)
    .start();
  const adminUrl = started.getConnectionUri();
  return {
    adminUrl,
    description: `${image} (${started.getId().slice(0, 12)})`,
    async restart() {
      const client = await getContainerRuntimeClient();
      const container = client.container.getById(started.getId());
      await client.container.restart(container, { timeout: 10 });
      const info = await client.container.inspect(container);
      const bound = info.NetworkSettings.Ports['5432/tcp']?.[0]?.HostPort;
      if (bound !== String(hostPort)) {
        throw new Error(`Postgres container came back on host port ${bound}, not ${hostPort}`);
      }
      await waitForPostgres(adminUrl);
    },
    async stop() {
      await started.stop({ timeout: 0 });
    },
  };
}

/** A running NATS container and its URL. */
export interface NatsServer {
  readonly url: string;
  readonly container: StartedTestContainer;
}

/**
 * Starts NATS with JetStream and no authentication, so that a plain `nats://host:port`
 * works for every client. A `GenericContainer` set up like `@testcontainers/nats`'
 * `NatsContainer` (same wait), because that class always adds `--user/--pass` and the
 * NATS client does not read credentials from a URL (docs/decisions/0001).
 */
export async function startNatsContainer(image: string): Promise<NatsServer> {
  const container = await new GenericContainer(image)
    .withCommand(['--jetstream'])
    .withLabels(OWNER_LABELS)
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .withPullPolicy(pullPolicyFor(image))
    .withStartupTimeout(120_000)
    .start();
  return { url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`, container };
}
