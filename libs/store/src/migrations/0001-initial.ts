import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The initial schema: DESIGN.md's tables. No foreign keys between them: sessions,
 * messages, parts, entries and ledger rows are written by independently delivered events
 * and commands, in any order (docs/decisions/0032).
 */
export const initialMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('parent_id', 'text')
      .addColumn('task_type', 'text')
      .addColumn('title', 'text')
      .addColumn('title_source', 'text', (c) =>
        c.check(sql`title_source in ('default', 'first_input', 'generated', 'custom')`),
      )
      .addColumn('first_input', 'text')
      .addColumn('first_input_edited', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('cwd', 'text')
      .addColumn('root', 'text')
      .addColumn('archived', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .addColumn('created_at', 'timestamptz')
      .addColumn('updated_at', 'timestamptz')
      .addColumn('last_sequence', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('sessions_parent_id_idx')
      .on('sessions')
      .column('parent_id')
      .execute();
    await db.schema
      .createIndex('sessions_cwd_idx')
      .on('sessions')
      .columns(['cwd', 'updated_at'])
      .execute();

    await db.schema
      .createTable('messages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('user', 'assistant')`))
      .addColumn('data', 'jsonb', (c) => c.notNull())
      .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('messages_session_idx')
      .on('messages')
      .columns(['session_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('parts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) =>
        c.check(sql`status in ('pending', 'running', 'completed', 'error')`),
      )
      .addColumn('status_rank', 'smallint', (c) => c.notNull().defaultTo(0))
      .addColumn('data', 'jsonb', (c) => c.notNull())
      .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('parts_message_idx')
      .on('parts')
      .columns(['message_id', 'id'])
      .execute();
    await db.schema.createIndex('parts_session_idx').on('parts').column('session_id').execute();

    await db.schema
      .createTable('session_entries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('key', 'text')
      .addColumn('event_id', 'text', (c) => c.notNull().unique())
      .addColumn('sequence', 'bigint', (c) => c.notNull())
      .addColumn('data', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('session_entries_session_type_idx')
      .on('session_entries')
      .columns(['session_id', 'type', 'sequence'])
      .execute();

    await db.schema
      .createTable('session_inputs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text')
      .addColumn('delivery', 'text', (c) =>
        c.check(sql`delivery in ('startNow', 'guide', 'queue')`),
      )
      .addColumn('delivery_seq', 'bigint')
      .addColumn('payload', 'jsonb')
      .addColumn('admitted_seq', 'bigint')
      .addColumn('position', 'bigint')
      .addColumn('promoted_seq', 'bigint')
      .addColumn('message_id', 'text')
      .addColumn('status', 'text', (c) =>
        c
          .notNull()
          .check(sql`status in ('admitted', 'promoted', 'cancelled', 'discarded', 'failed')`),
      )
      .addColumn('status_reason', 'text')
      .addColumn('status_seq', 'bigint')
      .addColumn('admitted_at', 'timestamptz')
      .addColumn('settled_at', 'timestamptz')
      .execute();
    await db.schema
      .createIndex('session_inputs_session_idx')
      .on('session_inputs')
      .columns(['session_id', 'status', 'position'])
      .execute();

    await db.schema
      .createTable('session_projections')
      .addColumn('session_id', 'text', (c) => c.primaryKey())
      .addColumn('projection', 'jsonb', (c) => c.notNull())
      .addColumn('last_sequence', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();

    await db.schema
      .createTable('processed_messages')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('outcome', 'jsonb')
      .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('processed_messages_pk', ['scope', 'id'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of [
      'processed_messages',
      'session_projections',
      'session_inputs',
      'session_entries',
      'parts',
      'messages',
      'sessions',
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
