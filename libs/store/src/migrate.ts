import { type Kysely, sql } from 'kysely';
import { type MigrationResult, Migrator } from 'kysely/migration';
import { toStoreError } from './errors.ts';
import { inCodeMigrationProvider } from './migrations/migrations.ts';

/** An arbitrary, fixed advisory-lock key owned by agentwire's migrations. */
const MIGRATION_LOCK_KEY = 0x61776d69; // "awmi"

/** What {@link migrate} did: the migrations it applied (empty when already up to date). */
export interface MigrateOutcome {
  readonly applied: readonly string[];
  readonly results: readonly MigrationResult[];
}

/**
 * Brings the schema to the latest version (DESIGN.md "Postgres": one command, safe from
 * several processes at once). One session-level `pg_advisory_lock` on one connection
 * serialises concurrent callers around kysely's `Migrator`, so safety does not rest on
 * the library's own locking (docs/decisions/0030). A second caller waits, then finds
 * nothing to do.
 *
 * @throws {StoreError} when a migration fails (it is rolled back) or Postgres is unreachable.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database type may be migrated
export async function migrate(db: Kysely<any>): Promise<MigrateOutcome> {
  try {
    return await db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
      try {
        const migrator = new Migrator({ db: conn, provider: inCodeMigrationProvider });
        const { error, results = [] } = await migrator.migrateToLatest();
        if (error !== undefined) throw error;
        return {
          applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName),
          results,
        };
      } finally {
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
      }
    });
  } catch (err) {
    throw toStoreError('migrate', err);
  }
}
