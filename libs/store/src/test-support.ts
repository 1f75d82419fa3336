/**
 * Helpers for this package's tests only (not exported from the package): a migrated
 * database per test file, and a compact event factory.
 */
import type { EventPayload, EventType, SessionEventOf } from '@agentwire/contracts';
import { SAMPLE_TRACE_ID } from '@agentwire/contracts/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createDatabase } from './create-database.ts';
import { migrate } from './migrate.ts';
import type { Database } from './schema.ts';

/** A fresh, migrated database for one test file. */
export interface StoreTestContext {
  readonly env: TestEnvironment;
  readonly db: Kysely<Database>;
  close(): Promise<void>;
}

/** Creates the file's database, migrates it and opens a pool on it. */
async function openStoreTestContext(): Promise<StoreTestContext> {
  const env = await createTestEnvironment();
  const db = createDatabase(env.databaseUrl, { poolSize: 4 });
  await migrate(db);
  return {
    env,
    db,
    async close() {
      await db.destroy();
      await env.dispose();
    },
  };
}

/**
 * Registers a store test file's hooks: {@link openStoreTestContext} before all tests,
 * {@link truncateAll} before each, `close()` after all. Call it once at the top of the
 * file; read `db` and `env` of the returned context inside tests and hooks only.
 */
export function useStoreTestContext(): Pick<StoreTestContext, 'env' | 'db'> {
  let ctx: StoreTestContext | undefined;
  const opened = (): StoreTestContext => {
    if (ctx === undefined) throw new Error('the store test context is open only in tests');
    return ctx;
  };
  beforeAll(async () => {
    ctx = await openStoreTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });
  beforeEach(async () => {
    await truncateAll(opened().db);
  });
  return {
    get env() {
      return opened().env;
    },
    get db() {
      return opened().db;
    },
  };
}

/** Empties every table of the store (between scenarios of one test). */
export async function truncateAll(db: Kysely<Database>): Promise<void> {
  await sql`truncate sessions, messages, parts, session_entries, session_inputs,
    session_projections, processed_messages`.execute(db);
}

/** A session event of `type` with the given sequence number and payload. */
export function event<T extends EventType>(
  type: T,
  sequenceNumber: number,
  payload: EventPayload<T>,
  overrides: { readonly sessionId?: string; readonly id?: string } = {},
): SessionEventOf<T> {
  const sessionId = overrides.sessionId ?? 's1';
  const built = {
    id: overrides.id ?? `${sessionId}-e${sequenceNumber}`,
    sessionId,
    turnId: 't1',
    type,
    timestamp: 1_700_000_000_000 + sequenceNumber * 1000,
    traceId: SAMPLE_TRACE_ID,
    sequenceNumber,
    payload,
  };
  return built as SessionEventOf<T>;
}

/** Every ordering of `items` (for small arrays: n! of them). */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}
