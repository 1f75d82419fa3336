// The README's example, compiled by `tsc` so that it cannot go stale.
import { samplePersistenceCommands, sampleSessionEvent } from '@agentwire/contracts/testing';
import {
  applyDurableEvents,
  applyMessageCommands,
  createDatabase,
  type DurableEvent,
  inTransaction,
  migrate,
} from './index.ts';

export async function readmeExample(url: string): Promise<void> {
  const db = createDatabase(url, { poolSize: 4 });
  await migrate(db); // safe from several processes at once

  // Durable events (R6) and message commands (R7), a batch per transaction, as the
  // persistence worker writes them: idempotent and order-tolerant.
  const event = sampleSessionEvent('checkpoint_created', { sequenceNumber: 7 }) as DurableEvent;
  const command = samplePersistenceCommands.save_user_message;
  const results = await inTransaction(db, 'readme', async (trx) => {
    await applyDurableEvents(trx, [event]);
    return applyMessageCommands(trx, [command]);
  });
  void results; // one per command: 'applied' | 'duplicate' | 'stale' | 'condition_failed'

  await db.destroy();
}
