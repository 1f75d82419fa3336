import {
  applyDurableEvent,
  type Database,
  type DurableEvent,
  inTransaction,
} from '@agentwire/store';
import { ATTRS } from '@agentwire/telemetry';
import type { Kysely } from 'kysely';
import type { BatchHandler } from './batch-consumer.ts';
import { decodeEventMessage } from './decode-event-message.ts';
import { lockSessions } from './lock-sessions.ts';

/**
 * The events consumer's handler (DESIGN.md flow 2): decodes `ev` messages, skipping every
 * type but R6's seven, and applies a batch in one transaction, ordered by session and
 * sequence number, after locking its sessions (`lockSessions`) so that competing
 * transactions queue instead of deadlocking.
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
      const sorted = [...events].sort(bySessionThenSequence);
      await inTransaction(db, `apply ${events.length} durable event(s)`, async (trx) => {
        await lockSessions(
          trx,
          sorted.map((e) => e.sessionId),
        );
        for (const e of sorted) await applyDurableEvent(trx, e);
      });
    },
  };
}

function bySessionThenSequence(a: DurableEvent, b: DurableEvent): number {
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
  return a.sequenceNumber - b.sequenceNumber;
}
