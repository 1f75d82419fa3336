import { createDatabase, migrate } from '@agentwire/store';
import {
  createTestEnvironment,
  postgresRestartSupport,
  restartPostgres,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTitleSidecar, type TitleSidecarProcess } from './testing/spawn-title-sidecar.ts';
import {
  connectTitleClient,
  seedSession,
  storedTitle,
  type TitleClient,
} from './testing/title-test-kit.ts';

const support = postgresRestartSupport();
const INSTANCE = 'title-restart';

let env: TestEnvironment;
let db: ReturnType<typeof createDatabase>;
let proc: TitleSidecarProcess;
let client: TitleClient;

/** True while a query of the sidecar waits for a lock (`pg_stat_activity`). */
async function waitingOnLock(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where application_name = $1 and wait_event_type = 'Lock'`,
      [INSTANCE],
    );
    return (rows[0]?.n ?? 0) > 0;
  } finally {
    await c.end();
  }
}

describe.skipIf(!support.ok)('a Postgres restart during title generation (issue 9, item 5)', () => {
  beforeAll(async () => {
    env = await createTestEnvironment({ dedicatedPostgres: true });
    db = createDatabase(env.databaseUrl, { poolSize: 2 });
    await migrate(db);
    proc = await spawnTitleSidecar({
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      AW_PREFIX: env.prefix,
      AW_INSTANCE_ID: INSTANCE,
    });
    client = await connectTitleClient(env.natsUrl, env.prefix);
  });

  afterAll(async () => {
    proc?.kill('SIGKILL');
    await client?.close();
    await db?.destroy();
    await env?.dispose();
  });

  it('the write-back cut by the restart is retried and the title arrives', async () => {
    const input = 'make the upload client retry with backoff';
    await seedSession(db, 'restart-1', input);
    // Hold the row so that the write-back is in flight, waiting on it, when Postgres goes.
    const holder = new pg.Client({ connectionString: env.databaseUrl });
    holder.on('error', () => {});
    await holder.connect();
    await holder.query('begin');
    await holder.query(`select id from sessions where id = 'restart-1' for update`);
    const pending = client.request({ sessionId: 'restart-1', input, expectedFirstInput: input });
    await waitUntil(() => waitingOnLock(env.databaseUrl), {
      timeoutMs: 20_000,
      what: 'the write-back waiting on the held row',
    });
    await restartPostgres(env);
    await holder.end().catch(() => undefined);
    const reply = await pending;
    expect(reply).toMatchObject({ ok: true, applied: true, source: 'generated' });
    expect(await storedTitle(db, 'restart-1')).toEqual({
      title: 'Make the upload client retry with',
      source: 'generated',
    });
    expect(proc.lines.some((l) => l.includes('title store failure; retrying'))).toBe(true);
  });
});
