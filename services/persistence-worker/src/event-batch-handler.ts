import type { Names } from '@agentwire/contracts';
import {
  applyDurableEvents,
  type Database,
  type DurableEvent,
  inTransaction,
  withStoreError,
} from '@agentwire/store';
import { ATTRS } from '@agentwire/telemetry';
import type { Kysely } from 'kysely';
import type { BatchHandler } from './batch-consumer.ts';
import { decodeEventMessage } from './decode-event-message.ts';
import { type EventItem, sessionMarks } from './event-item.ts';
import { inputLockKey, lockKeys } from './lock-keys.ts';
import { SessionNumbers } from './session-numbers.ts';

/**
 * The events consumer's handler (DESIGN.md flow 2): decodes `ev` messages and applies a
 * batch in one transaction (a batch of marks only: one statement, docs/decisions/0247)
 * with the store's set-based `applyDurableEvents` (a few
 * statements per batch, docs/decisions/0035), after locking the ledger rows it writes
 * (`lockKeys`) so that competing transactions queue on them instead of deadlocking. R6's
 * seven durable types write rows; every other type is read from its headers only and
 * raises its session's `last_sequence` to the batch's highest number, in the statement
 * that already writes the durable events' marks (docs/decisions/0036).
 */
export function eventBatchHandler(
  db: Kysely<Database>,
  options: { readonly maxMessageBytes: number; readonly names: Names },
): BatchHandler<EventItem> {
  const numbers = new SessionNumbers();
  return {
    decode: (msg) => numbers.check(decodeEventMessage(msg, options)),
    attributes: (item) =>
      item.kind === 'event'
        ? {
            [ATTRS.sessionId]: item.event.sessionId,
            [ATTRS.eventType]: item.event.type,
            [ATTRS.sequenceNumber]: item.event.sequenceNumber,
          }
        : { [ATTRS.sessionId]: item.sessionId, [ATTRS.sequenceNumber]: item.sequence },
    applyAll: async (items) => {
      const events = items.flatMap((i) => (i.kind === 'event' ? [i.event] : []));
      const marks = sessionMarks(items);
      const what = `${events.length} durable event(s), ${marks.size} mark(s)`;
      if (events.length === 0) {
        // Marks only: one statement, which needs no transaction block (0247).
        await withStoreError(`apply ${what}`, () => applyDurableEvents(db, [], marks));
        return;
      }
      await inTransaction(db, `apply ${what}`, async (trx) => {
        await lockKeys(trx, events.flatMap(ledgerLockKeys));
        await applyDurableEvents(trx, events, marks);
      });
    },
  };
}

/** The ledger rows an event writes (R6: the steer events but a `promoted` discard). */
function ledgerLockKeys(e: DurableEvent): string[] {
  switch (e.type) {
    case 'turn_steer_queued':
    case 'turn_steer_delivery_changed':
      return [inputLockKey(e.sessionId, e.payload.pendingInputId)];
    case 'turn_steer_discarded':
      return e.payload.reason === 'promoted'
        ? []
        : [inputLockKey(e.sessionId, e.payload.pendingInputId)];
    default:
      return [];
  }
}
