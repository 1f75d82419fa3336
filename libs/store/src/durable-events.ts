import type { DurableEventType, SessionEventOf, SteerDiscardReason } from '@agentwire/contracts';
import { applyLedgerOperation, ledgerOperationOfDiscard } from '@agentwire/domain';
import type { Kysely, Transaction } from 'kysely';
import { saveEntry, upsertKeyedEntry } from './entries-repository.ts';
import { goalVerificationDivider } from './goal-verification-divider.ts';
import {
  admitInput,
  changeInputDelivery,
  closeInput,
  type LedgerCloseStatus,
} from './ledger-repository.ts';
import { saveMessage, savePart } from './messages-repository.ts';
import type { Database } from './schema.ts';
import { advanceLastSequence } from './session-sequence.ts';
import { inTransaction } from './transaction.ts';

/** A session event of a durable type. */
export type DurableEvent = { [K in DurableEventType]: SessionEventOf<K> }[DurableEventType];

/**
 * What applying a durable event did: `applied` false when it changed nothing.
 *
 * @internal Exported for its tests.
 */
export interface DurableWriteOutcome {
  readonly applied: boolean;
}

/** The ledger row a `turn_steer_queued` admits (R14.1), for both write paths. */
export function admissionOf(e: SessionEventOf<'turn_steer_queued'>) {
  const { input, attachments, delivery, pendingInputId } = e.payload;
  return {
    id: pendingInputId,
    sessionId: e.sessionId,
    kind: 'prompt',
    delivery,
    payload: attachments === undefined ? { text: input } : { text: input, attachments },
    sequence: e.sequenceNumber,
    at: e.timestamp,
  };
}

/**
 * The ledger close for a `turn_steer_discarded` reason (R6, R14.2, R14.4), by the domain's
 * one mapping (`ledgerOperationOfDiscard`) and state machine; `undefined` for `promoted`
 * (the promotion already closed the row).
 */
export function ledgerCloseForDiscard(reason: SteerDiscardReason): LedgerCloseStatus | undefined {
  const operation = ledgerOperationOfDiscard(reason);
  if (operation === undefined) return undefined;
  const transition = applyLedgerOperation('admitted', operation);
  return transition.ok ? (transition.status as LedgerCloseStatus) : undefined;
}

type Handler<K extends DurableEventType> = (
  trx: Transaction<Database>,
  event: SessionEventOf<K>,
) => Promise<DurableWriteOutcome>;

function entryOf(event: DurableEvent, type: string) {
  return {
    sessionId: event.sessionId,
    type,
    eventId: event.id,
    sequence: event.sequenceNumber,
    data: event.payload,
    createdAt: event.timestamp,
  };
}

/** R6's table: one handler per durable type (the compiler rejects a missing one). */
const HANDLERS: { readonly [K in DurableEventType]: Handler<K> } = {
  checkpoint_created: async (trx, e) => {
    const { written } = await saveEntry(trx, entryOf(e, 'runtime/workspace_checkpoint'));
    return { applied: written };
  },
  rewind_triggered: async (trx, e) => {
    const { written } = await saveEntry(trx, entryOf(e, 'runtime/workspace_file_rewind'));
    return { applied: written };
  },
  user_input_auto_resolution_updated: async (trx, e) => {
    const entry = {
      ...entryOf(e, 'runtime/user_input_auto_resolution'),
      key: e.payload.interactionId,
    };
    const { written } = await upsertKeyedEntry(trx, entry);
    return { applied: written };
  },
  turn_steer_queued: async (trx, e) => {
    await admitInput(trx, admissionOf(e));
    return { applied: true };
  },
  turn_steer_delivery_changed: async (trx, e) => {
    await changeInputDelivery(trx, {
      id: e.payload.pendingInputId,
      sessionId: e.sessionId,
      delivery: e.payload.admittedDelivery,
      sequence: e.sequenceNumber,
    });
    return { applied: true };
  },
  turn_steer_discarded: async (trx, e) => {
    const status = ledgerCloseForDiscard(e.payload.reason);
    if (status === undefined) return { applied: false };
    const { closed } = await closeInput(trx, {
      id: e.payload.pendingInputId,
      sessionId: e.sessionId,
      status,
      reason: e.payload.reason,
      sequence: e.sequenceNumber,
      at: e.timestamp,
    });
    return { applied: closed };
  },
  target_completion_verification: async (trx, e) => {
    const { written } = await saveEntry(trx, entryOf(e, 'target_completion_verification'));
    const divider = goalVerificationDivider(e);
    await saveMessage(trx, divider.message);
    await savePart(trx, divider.part);
    return { applied: written };
  },
};

/**
 * Writes one durable event (R6) in one transaction, idempotently and order-tolerantly
 * (docs/decisions/0031), and raises the session's `last_sequence` to the event's number.
 * Pass a transaction to compose it with {@link runOnce}.
 */
export async function applyDurableEvent(
  db: Kysely<Database>,
  event: DurableEvent,
): Promise<DurableWriteOutcome> {
  return inTransaction(db, `applyDurableEvent(${event.type})`, async (trx) => {
    const handler = HANDLERS[event.type] as Handler<DurableEventType>;
    const outcome = await handler(trx, event as never);
    await advanceLastSequence(trx, event.sessionId, event.sequenceNumber);
    return outcome;
  });
}
