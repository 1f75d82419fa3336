import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The ledger keeps its delivery changes as facts (docs/decisions/0034): `deliveries` maps
 * the sequence number of each delivery-setting event (the admission and every
 * `turn_steer_delivery_changed`) to its delivery mode. `delivery` and `delivery_seq`
 * become generated from it: the entry with the greatest sequence number. Every write
 * passes its facts through `aw_ledger_deliveries`, which keeps them all while the row is
 * `admitted` and, once it is terminal, only the newest one at or before the closing
 * sequence (R14.2: changes apply only while admitted). The stored result is then a
 * function of the set of writes, whatever order they arrived in.
 */
export const ledgerDeliveryFactsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create function aw_ledger_deliveries(d jsonb, status text, status_seq bigint)
      returns jsonb language sql immutable parallel safe as $$
        select case when status = 'admitted' then coalesce(d, '{}'::jsonb)
          else coalesce((select jsonb_build_object(e.key, e.value) from jsonb_each(d) e
            where status_seq is null or e.key::bigint <= status_seq
            order by e.key::bigint desc limit 1), '{}'::jsonb) end
      $$`.execute(db);
    await sql`create function aw_latest_delivery_seq(d jsonb)
      returns bigint language sql immutable parallel safe as $$
        select max(k::bigint) from jsonb_object_keys(d) k
      $$`.execute(db);
    await sql`create function aw_latest_delivery(d jsonb)
      returns text language sql immutable parallel safe as $$
        select d ->> (select max(k::bigint) from jsonb_object_keys(d) k)::text
      $$`.execute(db);
    await sql`alter table session_inputs add column deliveries jsonb not null default '{}'::jsonb`.execute(
      db,
    );
    await sql`update session_inputs set deliveries = jsonb_build_object(delivery_seq::text, delivery)
      where delivery_seq is not null and delivery is not null`.execute(db);
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

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`alter table session_inputs drop column delivery, drop column delivery_seq`.execute(
      db,
    );
    await sql`alter table session_inputs add column delivery text
      check (delivery in ('startNow', 'guide', 'queue')), add column delivery_seq bigint`.execute(
      db,
    );
    await sql`update session_inputs set delivery = aw_latest_delivery(deliveries),
      delivery_seq = aw_latest_delivery_seq(deliveries)`.execute(db);
    await sql`alter table session_inputs drop column deliveries`.execute(db);
    await sql`drop function aw_latest_delivery(jsonb)`.execute(db);
    await sql`drop function aw_latest_delivery_seq(jsonb)`.execute(db);
    await sql`drop function aw_ledger_deliveries(jsonb, text, bigint)`.execute(db);
  },
};
