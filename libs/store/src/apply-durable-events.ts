import type { Kysely } from 'kysely';
import {
  type AdmitRow,
  admitInputs,
  advanceLastSequences,
  changeInputDeliveries,
  type DeliveryChangeRow,
  type EntryRow,
  foldedRounds,
  foldMessageWrite,
  foldPartWrite,
  insertEntries,
  rounds,
  type SettleRow,
  settleInputs,
  upsertKeyedEntries,
  upsertMessages,
  upsertParts,
} from './batch-writes.ts';
import { type DurableEvent, ledgerCloseForDiscard } from './durable-events.ts';
import { keyedEntryId } from './entries-repository.ts';
import { goalVerificationDivider } from './goal-verification-divider.ts';
import type { MessageInput, PartInput } from './messages-repository.ts';
import type { Database } from './schema.ts';

/** The rows a batch of durable events writes, per table and kind of write. */
interface EventRows {
  readonly entries: EntryRow[];
  readonly keyed: EntryRow[];
  readonly admits: AdmitRow[];
  readonly changes: DeliveryChangeRow[];
  readonly closes: SettleRow[];
  readonly messages: MessageInput[];
  readonly parts: PartInput[];
  readonly marks: Map<string, number>;
}

function entry(e: DurableEvent, type: string, key: string | null = null): EntryRow {
  return {
    id: key === null ? e.id : keyedEntryId(e.sessionId, type, key),
    sessionId: e.sessionId,
    type,
    key,
    eventId: e.id,
    sequence: e.sequenceNumber,
    data: e.payload,
    createdAt: e.timestamp,
  };
}

function collect(rows: EventRows, e: DurableEvent): void {
  switch (e.type) {
    case 'checkpoint_created':
      rows.entries.push(entry(e, 'runtime/workspace_checkpoint'));
      break;
    case 'rewind_triggered':
      rows.entries.push(entry(e, 'runtime/workspace_file_rewind'));
      break;
    case 'user_input_auto_resolution_updated':
      rows.keyed.push(entry(e, 'runtime/user_input_auto_resolution', e.payload.interactionId));
      break;
    case 'turn_steer_queued': {
      const { input, attachments, delivery, pendingInputId } = e.payload;
      rows.admits.push({
        id: pendingInputId,
        sessionId: e.sessionId,
        kind: 'prompt',
        delivery,
        payload: attachments === undefined ? { text: input } : { text: input, attachments },
        sequence: e.sequenceNumber,
        at: e.timestamp,
      });
      break;
    }
    case 'turn_steer_delivery_changed':
      rows.changes.push({
        id: e.payload.pendingInputId,
        sessionId: e.sessionId,
        delivery: e.payload.admittedDelivery,
        sequence: e.sequenceNumber,
      });
      break;
    case 'turn_steer_discarded': {
      const status = ledgerCloseForDiscard(e.payload.reason);
      if (status === undefined) break;
      rows.closes.push({
        id: e.payload.pendingInputId,
        sessionId: e.sessionId,
        status,
        reason: e.payload.reason,
        messageId: null,
        sequence: e.sequenceNumber,
        at: e.timestamp,
      });
      break;
    }
    case 'target_completion_verification': {
      rows.entries.push(entry(e, 'target_completion_verification'));
      const divider = goalVerificationDivider(e);
      rows.messages.push(divider.message);
      rows.parts.push(divider.part);
      break;
    }
  }
  rows.marks.set(e.sessionId, Math.max(rows.marks.get(e.sessionId) ?? 0, e.sequenceNumber));
}

/**
 * Writes many durable events (R6) inside the caller's transaction with a few set-based
 * statements (docs/decisions/0035), with the same rows as applying them one by one with
 * `applyDurableEvent` in (session, sequence) order: one statement per table and kind of
 * write, in rounds of distinct ids, then one raise of each session's `last_sequence`.
 */
export async function applyDurableEvents(
  trx: Kysely<Database>,
  events: readonly DurableEvent[],
): Promise<void> {
  const sorted = [...events].sort((a, b) =>
    a.sessionId === b.sessionId
      ? a.sequenceNumber - b.sequenceNumber
      : a.sessionId < b.sessionId
        ? -1
        : 1,
  );
  const rows: EventRows = {
    entries: [],
    keyed: [],
    admits: [],
    changes: [],
    closes: [],
    messages: [],
    parts: [],
    marks: new Map(),
  };
  for (const e of sorted) collect(rows, e);
  const byId = (r: { readonly id: string }) => r.id;
  for (const round of rounds(rows.entries, byId)) await insertEntries(trx, round);
  for (const round of rounds(rows.keyed, byId)) await upsertKeyedEntries(trx, round);
  for (const round of rounds(rows.admits, byId)) await admitInputs(trx, round);
  for (const round of rounds(rows.changes, byId)) await changeInputDeliveries(trx, round);
  for (const round of rounds(rows.closes, byId)) await settleInputs(trx, round);
  for (const round of foldedRounds(rows.messages, byId, foldMessageWrite)) {
    await upsertMessages(trx, round);
  }
  for (const round of foldedRounds(rows.parts, byId, foldPartWrite)) await upsertParts(trx, round);
  await advanceLastSequences(trx, rows.marks);
}
