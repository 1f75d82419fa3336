import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A session's parts in (`message_id`, `id`) order straight from an index (issue 16): the
 * cold open aggregates them in that order, and an ordered aggregate sorted 50,000 of them
 * by two text keys itself. The session index becomes that ordered one; a lookup by session
 * alone uses its first column as before.
 */
export const partsSessionOrderMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index parts_session_order_idx on parts (session_id, message_id, id)`.execute(
      db,
    );
    await sql`drop index parts_session_idx`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`create index parts_session_idx on parts (session_id)`.execute(db);
    await sql`drop index parts_session_order_idx`.execute(db);
  },
};
