/**
 * How the integration harness finds its servers, read from the environment once per run.
 * Pure: the environment and a file-existence probe come in from outside, so the rules can
 * be unit-tested.
 */

/** `AGENTWIRE_TEST_SERVERS`: force containers, force the local servers, or decide. */
type ServerMode = 'containers' | 'local' | 'auto';

/**
 * The socket `scripts/containers.sh` serves Podman's Docker-compatible API on.
 *
 * @internal Exported for its tests.
 */
export const AGENTWIRE_PODMAN_SOCKET = '/run/agentwire/podman.sock';

/** Default local servers of the fallback (COMMON.md's machine notes). */
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
/** Default local NATS of the fallback. */
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** Everything the global setup needs to decide and start. */
export interface ServerSettings {
  readonly mode: ServerMode;
  /** Docker-compatible API endpoint, or undefined when none was found. */
  readonly dockerHost: string | undefined;
  /** Where `dockerHost` came from, for the log line. */
  readonly dockerHostSource: 'DOCKER_HOST' | 'docker.sock' | 'agentwire podman' | 'none';
  readonly pgImage: string;
  readonly natsImage: string;
  /** Extra env for Testcontainers (Ryuk off, host override) when using the Podman socket. */
  readonly containerEnv: Readonly<Record<string, string>>;
  readonly databaseUrl: string;
  readonly natsUrl: string;
}

/**
 * Thrown for an `AGENTWIRE_TEST_SERVERS` value that is not one of the three modes.
 *
 * @internal Exported for its tests.
 */
export class InvalidServerModeError extends Error {
  override readonly name = 'InvalidServerModeError';
  readonly code = 'AW_TEST_INVALID_SERVER_MODE';
}

function parseMode(value: string | undefined): ServerMode {
  const mode = (value ?? '').trim() || 'auto';
  if (mode === 'containers' || mode === 'local' || mode === 'auto') return mode;
  throw new InvalidServerModeError(
    `AGENTWIRE_TEST_SERVERS must be containers, local or auto; got ${JSON.stringify(value)}`,
  );
}

/**
 * Reads the harness settings. The container engine is, in order: `DOCKER_HOST`,
 * `/var/run/docker.sock`, then the Podman socket of `scripts/containers.sh`. On that Podman
 * socket the images default to the locally built ones (no registry is reachable there) and
 * Ryuk is disabled; elsewhere they default to the official `postgres:15` and `nats:2.10`.
 */
export function readServerSettings(
  env: Readonly<Record<string, string | undefined>>,
  exists: (path: string) => boolean,
): ServerSettings {
  const mode = parseMode(env.AGENTWIRE_TEST_SERVERS);
  let dockerHost: string | undefined;
  let dockerHostSource: ServerSettings['dockerHostSource'] = 'none';
  if (env.DOCKER_HOST) {
    dockerHost = env.DOCKER_HOST;
    dockerHostSource = 'DOCKER_HOST';
  } else if (exists('/var/run/docker.sock')) {
    dockerHost = 'unix:///var/run/docker.sock';
    dockerHostSource = 'docker.sock';
  } else if (exists(AGENTWIRE_PODMAN_SOCKET)) {
    dockerHost = `unix://${AGENTWIRE_PODMAN_SOCKET}`;
    dockerHostSource = 'agentwire podman';
  }
  const onAgentwirePodman = dockerHost === `unix://${AGENTWIRE_PODMAN_SOCKET}`;
  const containerEnv: Record<string, string> = {};
  if (dockerHost) containerEnv.DOCKER_HOST = dockerHost;
  if (onAgentwirePodman) {
    containerEnv.TESTCONTAINERS_RYUK_DISABLED = env.TESTCONTAINERS_RYUK_DISABLED ?? 'true';
    containerEnv.TESTCONTAINERS_HOST_OVERRIDE = env.TESTCONTAINERS_HOST_OVERRIDE ?? '127.0.0.1';
  }
  return {
    mode,
    dockerHost,
    dockerHostSource,
    pgImage:
      env.AGENTWIRE_TEST_PG_IMAGE ||
      (onAgentwirePodman ? 'localhost/agentwire-postgres:15' : 'postgres:15'),
    natsImage:
      env.AGENTWIRE_TEST_NATS_IMAGE ||
      (onAgentwirePodman ? 'localhost/agentwire-nats:2.9' : 'nats:2.10'),
    containerEnv,
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    natsUrl: env.NATS_URL || DEFAULT_NATS_URL,
  };
}
