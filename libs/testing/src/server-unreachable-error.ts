/** Which of the two servers the harness needs. */
type ServerKind = 'postgres' | 'nats';

/** One server that did not answer. */
export interface UnreachableServer {
  readonly server: ServerKind;
  readonly url: string;
  readonly detail: string;
}

const LABEL: Record<ServerKind, string> = { postgres: 'PostgreSQL', nats: 'NATS (JetStream)' };
const VARIABLE: Record<ServerKind, string> = { postgres: 'DATABASE_URL', nats: 'NATS_URL' };

/**
 * Thrown by the local fallback when its servers do not answer: the message names each
 * server, the URL tried and the variables that point the harness elsewhere
 * (`DATABASE_URL`, `NATS_URL`, `DOCKER_HOST`).
 */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
  readonly code = 'AW_TEST_SERVER_UNREACHABLE';
  readonly failures: readonly UnreachableServer[];

  constructor(failures: readonly UnreachableServer[], why?: string, options?: ErrorOptions) {
    const what = failures
      .map((f) => `${LABEL[f.server]} at ${redact(f.url)} (${f.detail})`)
      .join(' and ');
    const set = failures
      .map((f) => `${VARIABLE[f.server]} to a ${LABEL[f.server]} server that answers`)
      .join(' and ');
    super(
      `integration tests could not reach ${what}. ` +
        `The harness uses local servers${why ? ` (${why})` : ''}: set ${set}, ` +
        'or make a container engine reachable with DOCKER_HOST ' +
        '(on Debian, `eval "$(bash scripts/containers.sh)"` sets one up). ' +
        'Variables: DATABASE_URL, NATS_URL, DOCKER_HOST, AGENTWIRE_TEST_SERVERS.',
      options,
    );
    this.failures = failures;
  }
}

/**
 * The URL without its password, for messages.
 *
 * @internal Exported for its tests.
 */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
