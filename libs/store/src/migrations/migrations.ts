import type { Migration, MigrationProvider } from 'kysely/migration';
import { initialMigration } from './0001-initial.ts';
import { ledgerDeliveryFactsMigration } from './0002-ledger-delivery-facts.ts';
import { ledgerDeliveryColumnsMigration } from './0003-ledger-delivery-columns.ts';
import { ledgerKeyPerSessionMigration } from './0004-ledger-key-per-session.ts';
import { ledgerPayloadSeqMigration } from './0005-ledger-payload-seq.ts';
import { messageTreeColumnsMigration } from './0006-message-tree-columns.ts';
import { partsSessionOrderMigration } from './0007-parts-session-order.ts';

/**
 * Every migration, keyed by a name that sorts in application order. Append only: a
 * published migration is never edited, a change is a new entry.
 *
 * @internal Exported for its tests.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initialMigration,
  '0002-ledger-delivery-facts': ledgerDeliveryFactsMigration,
  '0003-ledger-delivery-columns': ledgerDeliveryColumnsMigration,
  '0004-ledger-key-per-session': ledgerKeyPerSessionMigration,
  '0005-ledger-payload-seq': ledgerPayloadSeqMigration,
  '0006-message-tree-columns': messageTreeColumnsMigration,
  '0007-parts-session-order': partsSessionOrderMigration,
};

/** A kysely `MigrationProvider` over {@link MIGRATIONS} (in code, no file-system scan). */
export const inCodeMigrationProvider: MigrationProvider = {
  async getMigrations() {
    return { ...MIGRATIONS };
  },
};
