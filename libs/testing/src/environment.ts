import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import {
  dedicatedServerIds,
  releaseDedicatedPostgres,
  requestDedicatedPostgres,
} from './postgres-control.ts';

/** What one integration test file gets: its own database and its own subject prefix. */
export interface TestEnvironment {
  /** URL of a database created for this file alone. */
  readonly databaseUrl: string;
  /** URL of the run's NATS server (JetStream enabled). */
  readonly natsUrl: string;
  /** A subject prefix unique to this file; stream and bucket names derive from it. */
  readonly prefix: string;
  /** `dedicated` when this file has a Postgres server of its own (see options). */
  readonly postgres: 'shared' | 'dedicated';
  /** Drops the database (and stops a dedicated server). Streams are left to the caller. */
  dispose(): Promise<void>;
}

/** Options of {@link createTestEnvironment}. */
export interface TestEnvironmentOptions {
  /**
   * Put this file's database on a Postgres server of its own, so that `restartPostgres(env)`
   * disturbs no other file. Costs a server start (2-3 s). Check `postgresRestartSupport()`
   * first: without a container engine it needs a local `initdb`.
   */
  readonly dedicatedPostgres?: boolean;
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates a fresh database and a unique subject prefix for the calling test file
 * (DESIGN.md "Tests against real servers"). Call it in `beforeAll` and `dispose()` it in
 * `afterAll`.
 */
export async function createTestEnvironment(
  options: TestEnvironmentOptions = {},
): Promise<TestEnvironment> {
  const natsUrl = inject('natsUrl');
  const dedicated = options.dedicatedPostgres ? await requestDedicatedPostgres() : undefined;
  const adminUrl = dedicated?.adminUrl ?? inject('databaseUrl');
  const suffix = randomBytes(5).toString('hex');
  const dbName = `aw_test_${suffix}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const env: TestEnvironment = {
    databaseUrl: url.toString(),
    natsUrl,
    prefix: `awt${suffix}`,
    postgres: dedicated ? 'dedicated' : 'shared',
    async dispose() {
      if (dedicated) {
        await releaseDedicatedPostgres(dedicated.id);
        return;
      }
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    },
  };
  if (dedicated) dedicatedServerIds.set(env, dedicated.id);
  return env;
}
