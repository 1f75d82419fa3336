import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { ServerUnreachableError, type UnreachableServer } from './server-unreachable-error.ts';

const TIMEOUT_MS = 3_000;

function explain(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return explain(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || error.name;
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

/** Connects to Postgres and runs `SELECT 1`; resolves to why it failed, or undefined. */
async function probePostgres(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return explain(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Connects to NATS and reads the JetStream account info, so a server without JetStream
 * fails too; resolves to why it failed, or undefined.
 */
async function probeNats(url: string): Promise<string | undefined> {
  let nc: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    nc = await connect({ servers: url, timeout: TIMEOUT_MS, reconnect: false });
    const jsm = await jetstreamManager(nc, { timeout: TIMEOUT_MS });
    await jsm.getAccountInfo();
    return undefined;
  } catch (error) {
    return explain(error);
  } finally {
    await nc?.close().catch(() => {});
  }
}

/** The two URLs {@link checkServers} probes. */
export interface CheckedUrls {
  readonly databaseUrl: string;
  readonly natsUrl: string;
}

/**
 * Checks that both servers answer (Postgres: a query; NATS: JetStream account info).
 * Throws a {@link ServerUnreachableError} naming every server that did not; `why` says why
 * local servers are in use (for the message).
 */
export async function checkServers(urls: CheckedUrls, why?: string): Promise<void> {
  const [pgDetail, natsDetail] = await Promise.all([
    probePostgres(urls.databaseUrl),
    probeNats(urls.natsUrl),
  ]);
  const failures: UnreachableServer[] = [];
  if (pgDetail) failures.push({ server: 'postgres', url: urls.databaseUrl, detail: pgDetail });
  if (natsDetail) failures.push({ server: 'nats', url: urls.natsUrl, detail: natsDetail });
  if (failures.length > 0) throw new ServerUnreachableError(failures, why);
}
