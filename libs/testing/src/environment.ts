import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** What one integration test file gets: its own database and its own subject prefix. */
export interface TestEnvironment {
  /** URL of a database created for this file alone. */
  readonly databaseUrl: string;
  /** URL of the run's NATS server (JetStream enabled). */
  readonly natsUrl: string;
  /** A subject prefix unique to this file; stream and bucket names derive from it. */
  readonly prefix: string;
  /** Drops the database. Streams are left to the caller (they are prefix-scoped). */
  dispose(): Promise<void>;
}

/**
 * Creates a fresh database and a unique subject prefix for the calling test file.
 * Call it in `beforeAll` and `dispose()` it in `afterAll`.
 */
export async function createTestEnvironment(): Promise<TestEnvironment> {
  const adminUrl = inject('databaseUrl');
  const natsUrl = inject('natsUrl');
  const suffix = randomBytes(5).toString('hex');
  const dbName = `aw_test_${suffix}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${dbName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  return {
    databaseUrl: url.toString(),
    natsUrl,
    prefix: `awt${suffix}`,
    async dispose() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
