import { type Kysely, sql, type Transaction } from 'kysely';
import {
  type PromoteInputArgs,
  type PromoteInputOutcome,
  promoteInput,
} from './ledger-repository.ts';
import type { Database, MessageRow, PartRow } from './schema.ts';
import { inTransaction, json, toDate } from './transaction.ts';

/** A message to save (R7, R16.4). `data` is the whole message as the contracts define it. */
export interface MessageInput {
  readonly id: string;
  readonly sessionId: string;
  readonly role: 'user' | 'assistant';
  readonly data: unknown;
  /** Rewrites apply only with a greater version; 0 for write-once messages. */
  readonly version: number;
  readonly createdAt: number | string | Date;
}

/** Tool part statuses (R7.5), in their only allowed order. */
export type ToolStatusValue = 'pending' | 'running' | 'completed' | 'error';

/** A part to save (R7.2). `status` is set for tool parts. */
export interface PartInput {
  readonly id: string;
  readonly messageId: string;
  readonly sessionId: string;
  readonly type: string;
  readonly status?: ToolStatusValue | undefined;
  readonly data: unknown;
  readonly version: number;
}

const STATUS_RANK: Readonly<Record<ToolStatusValue, number>> = {
  pending: 0,
  running: 1,
  completed: 2,
  error: 2,
};

const TERMINAL_RANK = 2;

/**
 * What a versioned write did (the contracts' `VersionDecision`): `applied`, `duplicate`
 * (the stored row already has this version and status) or `stale` (the stored row is
 * newer, so the write was dropped).
 */
export type VersionedWriteOutcome = 'applied' | 'duplicate' | 'stale';

/** The result of a versioned write. */
export interface WriteOutcome {
  readonly outcome: VersionedWriteOutcome;
}

/**
 * Upserts a message by version (R7, DESIGN "a late or repeated write never overwrites a
 * newer one"): inserted if absent, replaced only by a greater version.
 */
export async function saveMessage(
  db: Kysely<Database>,
  message: MessageInput,
): Promise<WriteOutcome> {
  return inTransaction(db, 'saveMessage', async (trx) => {
    const row = await trx
      .insertInto('messages')
      .values({
        id: message.id,
        session_id: message.sessionId,
        role: message.role,
        data: json(message.data),
        version: message.version,
        created_at: toDate(message.createdAt),
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({
            data: (eb) => eb.ref('excluded.data'),
            version: (eb) => eb.ref('excluded.version'),
            created_at: (eb) => eb.ref('excluded.created_at'),
          })
          .where('messages.version', '<', (eb) => eb.ref('excluded.version')),
      )
      .returning('id')
      .executeTakeFirst();
    if (row !== undefined) return { outcome: 'applied' };
    const stored = await trx
      .selectFrom('messages')
      .select('version')
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    return { outcome: stored.version === message.version ? 'duplicate' : 'stale' };
  });
}

/**
 * Upserts a part. Order: (status rank, version), compared as a pair, must grow. A tool
 * part's status is forward-only (R7.5): pending < running < completed | error, so a late
 * `running` never replaces `completed`, and one terminal status never replaces the other
 * (the contracts' `classifyToolPartTransition` calls both `regress`); within one status a
 * greater version wins.
 */
export async function savePart(db: Kysely<Database>, part: PartInput): Promise<WriteOutcome> {
  return inTransaction(db, 'savePart', async (trx) => {
    const row = await trx
      .insertInto('parts')
      .values({
        id: part.id,
        message_id: part.messageId,
        session_id: part.sessionId,
        type: part.type,
        status: part.status ?? null,
        status_rank: part.status === undefined ? 0 : STATUS_RANK[part.status],
        data: json(part.data),
        version: part.version,
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({
            status: (eb) => eb.ref('excluded.status'),
            status_rank: (eb) => eb.ref('excluded.status_rank'),
            data: (eb) => eb.ref('excluded.data'),
            version: (eb) => eb.ref('excluded.version'),
          })
          .where((eb) =>
            eb.and([
              eb(
                eb.refTuple('parts.status_rank', 'parts.version'),
                '<',
                eb.refTuple('excluded.status_rank', 'excluded.version'),
              ),
              sql<boolean>`not (parts.status_rank = ${TERMINAL_RANK}
                and parts.status is distinct from excluded.status)`,
            ]),
          ),
      )
      .returning('id')
      .executeTakeFirst();
    if (row !== undefined) return { outcome: 'applied' };
    const stored = await trx
      .selectFrom('parts')
      .select(['version', 'status'])
      .where('id', '=', part.id)
      .executeTakeFirstOrThrow();
    const same = stored.version === part.version && stored.status === (part.status ?? null);
    return { outcome: same ? 'duplicate' : 'stale' };
  });
}

/** Saves a message and its parts in one transaction (assistant messages, notices, dividers). */
export async function saveMessageWithParts(
  db: Kysely<Database>,
  input: { readonly message: MessageInput; readonly parts: readonly PartInput[] },
): Promise<WriteOutcome> {
  return inTransaction(db, 'saveMessageWithParts', async (trx) => {
    const outcome = await saveMessage(trx, input.message);
    for (const part of input.parts) await savePart(trx, part);
    return outcome;
  });
}

/** Input of {@link saveUserMessage}. */
export interface SaveUserMessageInput {
  readonly message: MessageInput;
  readonly parts: readonly PartInput[];
  /** The ledger row this message promotes (R7.3), if any. */
  readonly promote?: Omit<PromoteInputArgs, 'messageId' | 'sessionId'> | undefined;
}

/** Outcome of {@link saveUserMessage}. */
export type SaveUserMessageOutcome =
  | { readonly ok: true; readonly promoted: 'promoted' | 'already_promoted' | 'none' }
  | Extract<PromoteInputOutcome, { ok: false }>;

/**
 * Saves a user message with its parts and, when it carries a ledger id, marks that row
 * `promoted` in the same transaction (R7.3, R14.2, R16.4). If the row is already closed
 * otherwise (cancelled, discarded, failed, or promoted by another message), nothing is
 * written and the refusal is returned. Repeating the call is an idempotent success.
 */
export async function saveUserMessage(
  db: Kysely<Database>,
  input: SaveUserMessageInput,
): Promise<SaveUserMessageOutcome> {
  return inTransaction(db, 'saveUserMessage', async (trx: Transaction<Database>) => {
    let promoted: 'promoted' | 'already_promoted' | 'none' = 'none';
    if (input.promote !== undefined) {
      const outcome = await promoteInput(trx, {
        ...input.promote,
        sessionId: input.message.sessionId,
        messageId: input.message.id,
      });
      if (!outcome.ok) return outcome;
      promoted = outcome.alreadyPromoted ? 'already_promoted' : 'promoted';
    }
    await saveMessage(trx, input.message);
    for (const part of input.parts) await savePart(trx, part);
    return { ok: true, promoted };
  });
}

/**
 * A message read back with its parts (cold recovery, R10.4).
 */
export interface TranscriptMessage {
  readonly message: MessageRow;
  readonly parts: PartRow[];
}

/** Reads a session's messages in creation order, each with its parts in id order. */
export async function loadTranscript(
  db: Kysely<Database>,
  sessionId: string,
): Promise<TranscriptMessage[]> {
  return inTransaction(db, 'loadTranscript', async (trx) => {
    const messages = await trx
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const parts = await trx
      .selectFrom('parts')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('message_id')
      .orderBy('id')
      .execute();
    const byMessage = new Map<string, PartRow[]>();
    for (const p of parts) {
      const list = byMessage.get(p.message_id);
      if (list === undefined) byMessage.set(p.message_id, [p]);
      else list.push(p);
    }
    return messages.map((message) => ({ message, parts: byMessage.get(message.id) ?? [] }));
  });
}
