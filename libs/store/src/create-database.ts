import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

/** Options of {@link createDatabase}. */
export interface CreateDatabaseOptions {
  /** Maximum pool size (default 10). */
  readonly poolSize?: number;
  /** Connect timeout in milliseconds (default 5000). */
  readonly connectionTimeoutMs?: number;
  /** Idle connection timeout in milliseconds (default 30000). */
  readonly idleTimeoutMs?: number;
  /** `application_name` shown in `pg_stat_activity`. */
  readonly applicationName?: string;
  /**
   * Called with errors emitted by the pool or by any pooled client (a server restart, say:
   * Postgres terminates every connection with 57P01). Without a listener on each client,
   * `pg` re-emits such an error as an unhandled `'error'` event and Node crashes the
   * process. The default ignores it: the query in flight (if any) fails with a classified,
   * retryable error, and the pool discards the broken client.
   */
  readonly onPoolError?: (err: Error) => void;
}

const INT8_OID = 20;

/** int8 (`bigint`) as a JavaScript number: sequence numbers and versions stay below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (v: string) => Number(v);
    return format === undefined
      ? pg.types.getTypeParser(oid)
      : pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/**
 * Opens the store: a `Kysely<Database>` over a `pg` pool. Close it with `db.destroy()`.
 * Creating it does not connect; the first query does.
 */
export function createDatabase(url: string, options: CreateDatabaseOptions = {}): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    types,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName }),
  });
  const onError = options.onPoolError ?? (() => {});
  pool.on('error', onError);
  // A checked-out client that loses its connection emits 'error' on itself, not on the pool.
  pool.on('connect', (client) => {
    client.on('error', onError);
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
