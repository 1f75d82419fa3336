import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './environment.ts';
import { postgresRestartSupport, restartPostgres } from './restart-postgres.ts';

const support = postgresRestartSupport();

describe.skipIf(!support.ok)('restartPostgres on a dedicated server', () => {
  let env: TestEnvironment;
  let shared: TestEnvironment;

  beforeAll(async () => {
    [env, shared] = await Promise.all([
      createTestEnvironment({ dedicatedPostgres: true }),
      createTestEnvironment(),
    ]);
  });

  afterAll(async () => {
    await Promise.all([env?.dispose(), shared?.dispose()]);
  });

  it('cuts queries in flight, answers again on the same URL, leaves the shared server alone', async () => {
    expect(env.postgres).toBe('dedicated');
    const before = new pg.Client({ connectionString: env.databaseUrl });
    before.on('error', () => {});
    await before.connect();
    await before.query('CREATE TABLE survives (v int); INSERT INTO survives VALUES (42)');
    const onShared = new pg.Client({ connectionString: shared.databaseUrl });
    await onShared.connect();

    const inFlight = before.query('SELECT pg_sleep(30)');
    inFlight.catch(() => {});
    const restarted = restartPostgres(env);
    await expect(inFlight).rejects.toThrow();
    await restarted;

    const after = new pg.Client({ connectionString: env.databaseUrl });
    await after.connect();
    try {
      const r = await after.query<{ v: number }>('SELECT v FROM survives');
      expect(r.rows).toEqual([{ v: 42 }]);
    } finally {
      await after.end();
      await before.end().catch(() => {});
    }
    // The other file's server kept its connections.
    expect((await onShared.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await onShared.end();
  });
});

describe.skipIf(support.ok)('restartPostgres unsupported here', () => {
  it('says why', () => {
    expect(support.ok ? '' : support.reason).not.toBe('');
  });
});
