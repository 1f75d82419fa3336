import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A message's tree link as columns of its own (docs/decisions/0245): `tree_linked` (the
 * row carries `treeParentId`, docs/decisions/0239) and `tree_parent` (its value), generated
 * from `data`, so that the active chain is computed from an index instead of every row's
 * JSON. The session index now carries them (an index-only walk in transcript order), and
 * a partial index finds a message's explicit children.
 */
export const messageTreeColumnsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table messages
      add column tree_linked boolean generated always as (data ? 'treeParentId') stored,
      add column tree_parent text generated always as (data ->> 'treeParentId') stored`.execute(db);
    await sql`create index messages_chain_idx on messages (session_id, created_at, id)
      include (tree_linked, tree_parent)`.execute(db);
    await sql`drop index messages_session_idx`.execute(db);
    await sql`create index messages_tree_parent_idx on messages (session_id, tree_parent)
      where tree_linked`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`create index messages_session_idx on messages (session_id, created_at, id)`.execute(
      db,
    );
    await sql`drop index messages_chain_idx`.execute(db);
    await sql`drop index messages_tree_parent_idx`.execute(db);
    await sql`alter table messages drop column tree_linked, drop column tree_parent`.execute(db);
  },
};
