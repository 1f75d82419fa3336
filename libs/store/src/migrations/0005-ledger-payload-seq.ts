import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * `session_inputs.payload_seq`: the sequence number of the event that set the row's payload,
 * the admission or a later edit (`turn_steer_queued` re-emitted with the same id,
 * docs/decisions/0222), so the newest edit wins in any arrival order.
 */
export const ledgerPayloadSeqMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table session_inputs add column payload_seq bigint`.execute(db);
    await sql`update session_inputs set payload_seq = admitted_seq
      where admitted_seq is not null`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table session_inputs drop column payload_seq`.execute(db);
  },
};
