import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from './create-database.ts';
import { classifyPgError } from './errors.ts';

let env: TestEnvironment;
beforeAll(async () => {
  env = await createTestEnvironment();
});
afterAll(async () => {
  await env.dispose();
});

describe('createDatabase', () => {
  it('survives the server killing a checked-out connection: the error reaches onPoolError, the next query works', async () => {
    const seen: Error[] = [];
    const db = createDatabase(env.databaseUrl, { poolSize: 2, onPoolError: (e) => seen.push(e) });
    const admin = new pg.Client({ connectionString: env.databaseUrl });
    await admin.connect();
    try {
      const failure = await db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // The client is checked out and idle in the transaction: no query in flight, so
          // pg reports the termination only as an 'error' event on the client itself.
          await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
          await waitUntil(() => seen.length > 0, { what: 'the pool error' });
          await sql`select 1`.execute(trx);
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(seen.length).toBeGreaterThan(0);
      expect(classifyPgError(failure)).toMatchObject({ retryable: true, kind: 'connection' });
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.destroy();
    }
  });
});
