import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from './create-database.ts';
import { classifyPgError, StoreError } from './errors.ts';
import { migrate } from './migrate.ts';
import { MIGRATIONS } from './migrations/migrations.ts';
import { withStoreError } from './transaction.ts';

let env: TestEnvironment;
beforeAll(async () => {
  env = await createTestEnvironment();
});
afterAll(async () => {
  await env.dispose();
});

describe('migrate', () => {
  it('runs from several processes at once: one applies, the others find nothing to do', async () => {
    const dbs = [1, 2, 3].map(() => createDatabase(env.databaseUrl, { poolSize: 1 }));
    try {
      const outcomes = await Promise.all(dbs.map((db) => migrate(db)));
      const applied = outcomes.flatMap((o) => o.applied);
      expect(applied.sort()).toEqual(Object.keys(MIGRATIONS).sort());
      const [first] = dbs;
      if (first === undefined) throw new Error('no database');
      const tables = await sql<{ tablename: string }>`
        select tablename from pg_tables where schemaname = 'public' order by tablename`.execute(
        first,
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual(
        expect.arrayContaining([
          'sessions',
          'messages',
          'parts',
          'session_entries',
          'session_inputs',
        ]),
      );
      expect((await migrate(first)).applied).toEqual([]);
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
    }
  });

  it('is what `node libs/store/src/cli.ts` runs', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['libs/store/src/cli.ts'], {
      env: { ...process.env, DATABASE_URL: env.databaseUrl },
    });
    expect(stdout).toBe('migrate: schema already up to date\n');
  });
});

describe('error classification against a real server', () => {
  it('a unique violation is a constraint error, not retryable', async () => {
    const db = createDatabase(env.databaseUrl, { poolSize: 1 });
    try {
      const insert = () =>
        db.insertInto('processed_messages').values({ scope: 'test', id: 'dup' }).execute();
      await insert();
      const err = await withStoreError('insert', insert).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err).toMatchObject({ kind: 'constraint', code: '23505', retryable: false });
    } finally {
      await db.destroy();
    }
  });

  it('bad JSON text for jsonb is bad data, not retryable', async () => {
    const db = createDatabase(env.databaseUrl, { poolSize: 1 });
    try {
      const err = await sql`select '{"a": "\\u0000"}'::jsonb`.execute(db).catch((e: unknown) => e);
      expect(classifyPgError(err)).toMatchObject({ kind: 'bad_data', retryable: false });
    } finally {
      await db.destroy();
    }
  });

  it('a refused connection is a retryable connection error', async () => {
    const url = new URL(env.databaseUrl);
    url.port = '1';
    const db = createDatabase(url.toString(), { poolSize: 1, connectionTimeoutMs: 2000 });
    try {
      const err = await migrate(db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err).toMatchObject({ kind: 'connection', retryable: true, code: 'ECONNREFUSED' });
    } finally {
      await db.destroy();
    }
  });
});
