/**
 * The README's usage example, kept here so that `tsc` checks it. Not exported.
 */
import { samplePersistenceCommands, sampleSessionEvent } from '@agentwire/contracts';
import {
  applyDurableEvent,
  applyPersistenceCommand,
  createDatabase,
  migrate,
  runOnce,
} from './index.ts';

export async function readmeExample(url: string): Promise<void> {
  const db = createDatabase(url, { poolSize: 4 });
  await migrate(db); // safe from several processes at once

  // A durable event (R6): idempotent, order-tolerant, raises sessions.last_sequence.
  const event = sampleSessionEvent('checkpoint_created', { sequenceNumber: 7 });
  await runOnce(db, { scope: 'event', id: event.id }, (trx) => applyDurableEvent(trx, event));

  // A persistence command (R7): the outcome is remembered for redeliveries.
  const command = samplePersistenceCommands.save_user_message;
  const { duplicate, outcome } = await runOnce(
    db,
    { scope: 'command', id: command.commandId },
    (trx) => applyPersistenceCommand(trx, command),
  );
  void duplicate;
  void outcome; // { outcome: 'applied' | 'duplicate' | 'stale' | 'condition_failed', reason? }

  await db.destroy();
}
