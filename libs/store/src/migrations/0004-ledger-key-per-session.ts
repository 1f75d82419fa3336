import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The input ledger is keyed by `(session_id, id)` (issue 9, docs/decisions/0111): an input
 * id is the client's idempotency key within its session, so another session using the same
 * id gets its own row instead of touching this one's.
 */
export const ledgerKeyPerSessionMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table session_inputs drop constraint session_inputs_pkey,
      add primary key (session_id, id)`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table session_inputs drop constraint session_inputs_pkey,
      add primary key (id)`.execute(db);
  },
};
