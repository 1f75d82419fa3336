import {
  applyDurableEvents,
  type Database,
  type DurableEvent,
  inTransaction,
} from '@agentwire/store';
import { ATTRS } from '@agentwire/telemetry';
import type { Kysely } from 'kysely';
import type { BatchHandler } from './batch-consumer.ts';
import { decodeEventMessage } from './decode-event-message.ts';
import { inputLockKey, lockKeys } from './lock-keys.ts';

/**
 * The events consumer's handler (DESIGN.md flow 2): decodes `ev` messages, skipping every
 * type but R6's seven, and applies a batch in one transaction with the store's set-based
 * `applyDurableEvents` (a few statements per batch, docs/decisions/0035), after locking
 * the ledger rows it writes (`lockKeys`) so that competing transactions queue on them
 * instead of deadlocking.
 */
export function eventBatchHandler(
  db: Kysely<Database>,
  maxMessageBytes: number,
): BatchHandler<DurableEvent> {
  return {
    decode: (msg) => decodeEventMessage(msg, { maxMessageBytes }),
    attributes: (e) => ({
      [ATTRS.sessionId]: e.sessionId,
      [ATTRS.eventType]: e.type,
      [ATTRS.sequenceNumber]: e.sequenceNumber,
    }),
    applyAll: async (events) => {
      await inTransaction(db, `apply ${events.length} durable event(s)`, async (trx) => {
        await lockKeys(trx, events.flatMap(ledgerLockKeys));
        await applyDurableEvents(trx, events);
      });
    },
  };
}

/** The ledger rows an event writes (R6: the steer events but a `promoted` discard). */
function ledgerLockKeys(e: DurableEvent): string[] {
  switch (e.type) {
    case 'turn_steer_queued':
    case 'turn_steer_delivery_changed':
      return [inputLockKey(e.payload.pendingInputId)];
    case 'turn_steer_discarded':
      return e.payload.reason === 'promoted' ? [] : [inputLockKey(e.payload.pendingInputId)];
    default:
      return [];
  }
}
