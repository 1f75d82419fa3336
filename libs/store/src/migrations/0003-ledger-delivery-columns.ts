import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * `delivery` and `delivery_seq` become plain columns again, written by the ledger's upserts
 * with cheap comparisons (`ledger-sql.ts`) instead of generated from `deliveries` by SQL
 * functions on every write, which made each ledger row cost several function calls
 * (docs/decisions/0034, 0035). `deliveries` keeps its meaning.
 */
export const ledgerDeliveryColumnsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`alter table session_inputs rename column delivery to delivery_generated`.execute(db);
    await sql`alter table session_inputs rename column delivery_seq to delivery_seq_generated`.execute(
      db,
    );
    await sql`alter table session_inputs
      add column delivery text check (delivery in ('startNow', 'guide', 'queue')),
      add column delivery_seq bigint`.execute(db);
    await sql`update session_inputs set delivery = delivery_generated,
      delivery_seq = delivery_seq_generated where delivery_seq_generated is not null`.execute(db);
    await sql`alter table session_inputs drop column delivery_generated,
      drop column delivery_seq_generated`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`alter table session_inputs drop column delivery, drop column delivery_seq`.execute(
      db,
    );
    await sql`alter table session_inputs
      add column delivery text generated always as (aw_latest_delivery(deliveries)) stored
        check (delivery in ('startNow', 'guide', 'queue')),
      add column delivery_seq bigint generated always as (aw_latest_delivery_seq(deliveries)) stored`.execute(
      db,
    );
  },
};
