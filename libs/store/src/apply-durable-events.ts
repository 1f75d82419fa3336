import type { Kysely } from 'kysely';
import {
  type AdmitRow,
  admitInputs,
  advanceLastSequencesSql,
  changeInputDeliveries,
  type DeliveryChangeRow,
  type EntryRow,
  foldedRounds,
  foldMessageWrite,
  foldPartWrite,
  insertEntriesSql,
  rounds,
  type SettleRow,
  settleInputs,
  upsertKeyedEntriesSql,
  upsertMessagesSql,
  upsertPartsSql,
  writeTogether,
} from './batch-writes.ts';
import { admissionOf, type DurableEvent, ledgerCloseForDiscard } from './durable-events.ts';
import { keyedEntryId } from './entries-repository.ts';
import { goalVerificationDivider } from './goal-verification-divider.ts';
import { ledgerKey } from './ledger-repository.ts';
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
    case 'turn_steer_queued':
      rows.admits.push(admissionOf(e));
      break;
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
 * `applyDurableEvent` in (session, sequence) order: the ledger writes (one statement per
 * kind, in rounds of distinct ids), then one statement for the entries, the dividers and
 * each session's `last_sequence` (rows of one id repeated in the batch in later rounds).
 *
 * `marks` are further per-session event numbers the batch saw (the non-durable events of
 * the `ev` subjects, docs/decisions/0036): they raise `last_sequence` in that same
 * statement, so the durable high-water mark (DESIGN.md first invariant, R2.3) covers every
 * non-transient number at no extra round trip. A batch of marks only is one statement.
 */
export async function applyDurableEvents(
  trx: Kysely<Database>,
  events: readonly DurableEvent[],
  marks: ReadonlyMap<string, number> = new Map(),
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
    marks: new Map(marks),
  };
  for (const e of sorted) collect(rows, e);
  const byId = (r: { readonly id: string }) => r.id;
  const byRow = (r: { readonly id: string; readonly sessionId: string }) =>
    ledgerKey(r.sessionId, r.id);
  // The ledger first (one statement per kind of write: same table), ...
  for (const round of rounds(rows.admits, byRow)) await admitInputs(trx, round);
  for (const round of rounds(rows.changes, byRow)) await changeInputDeliveries(trx, round);
  for (const round of rounds(rows.closes, byRow)) await settleInputs(trx, round);
  // ... then the first round of every other table and the sessions' high-water marks in one
  // statement (distinct tables), then any further rounds (a repeated id in the batch).
  const [entries = [], ...entryRounds] = rounds(rows.entries, byId);
  const [keyed = [], ...keyedRounds] = rounds(rows.keyed, byId);
  const [messages = [], ...messageRounds] = foldedRounds(rows.messages, byId, foldMessageWrite);
  const [parts = [], ...partRounds] = foldedRounds(rows.parts, byId, foldPartWrite);
  await writeTogether(trx, [
    ...(entries.length > 0 ? [insertEntriesSql(entries)] : []),
    ...(keyed.length > 0 ? [upsertKeyedEntriesSql(keyed)] : []),
    ...(messages.length > 0 ? [upsertMessagesSql(messages)] : []),
    ...(parts.length > 0 ? [upsertPartsSql(parts)] : []),
    ...(rows.marks.size > 0 ? [advanceLastSequencesSql(rows.marks)] : []),
  ]);
  for (const round of entryRounds) await insertEntriesSql(round).execute(trx);
  for (const round of keyedRounds) await upsertKeyedEntriesSql(round).execute(trx);
  for (const round of messageRounds) await upsertMessagesSql(round).execute(trx);
  for (const round of partRounds) await upsertPartsSql(round).execute(trx);
}
