import type { PersistenceCommandOf, PersistenceOutcome } from '@agentwire/contracts';
import { type Kysely, sql } from 'kysely';
import {
  foldedRounds,
  foldMessageWrite,
  foldPartWrite,
  rounds,
  type SettleRow,
  settleInputs,
  settleInputsSql,
  upsertMessages,
  upsertMessagesSql,
  upsertParts,
  upsertPartsSql,
} from './batch-writes.ts';
import { type LedgerStatusValue, ledgerKey } from './ledger-repository.ts';
import type { MessageInput, PartInput } from './messages-repository.ts';
import { messageInput, partInput } from './persistence-commands.ts';
import type { Database } from './schema.ts';

/** The R7 commands that write only messages, parts and (for a user message) the ledger. */
export type MessageCommand = PersistenceCommandOf<
  | 'save_user_message'
  | 'save_assistant_message'
  | 'save_part'
  | 'save_synthetic_notice'
  | 'save_timeline_divider'
>;

const MESSAGE_KINDS = new Set<string>([
  'save_user_message',
  'save_assistant_message',
  'save_part',
  'save_synthetic_notice',
  'save_timeline_divider',
]);

/** Whether {@link applyMessageCommands} handles this command. */
export function isMessageCommand(command: { readonly kind: string }): command is MessageCommand {
  return MESSAGE_KINDS.has(command.kind);
}

/** What one command of {@link applyMessageCommands} did. */
export interface MessageCommandResult {
  readonly outcome: PersistenceOutcome;
  /** Set when a promotion was refused (R14.2): the ledger row's state; nothing was written. */
  readonly refused?: { readonly status: LedgerStatusValue; readonly messageId: string | null };
}

/** The rows one command writes. */
interface Planned {
  readonly message?: MessageInput;
  readonly parts: readonly PartInput[];
}

function plan(c: MessageCommand): Planned {
  switch (c.kind) {
    case 'save_user_message':
    case 'save_synthetic_notice':
      return {
        message: messageInput(c.message, c.version),
        parts: c.parts.map((p) => partInput(p, c.version)),
      };
    case 'save_assistant_message':
      return { message: messageInput(c.message, c.version), parts: [] };
    case 'save_timeline_divider':
      return { message: messageInput(c.message, c.version), parts: [partInput(c.part, c.version)] };
    case 'save_part':
      return { parts: [partInput(c.part, c.version)] };
  }
}

/**
 * Applies many message commands (R7) inside the caller's transaction with a few set-based
 * statements (docs/decisions/0035), with the same result as applying them one by one in
 * order through `applyPersistenceCommand`: promotions first (R7.3, R14.2: a refused one
 * writes nothing), then every message, then every part, each table in rounds of distinct
 * ids. Returns one result per command, in order: `applied`, `duplicate` (the stored row
 * already had this version), `stale` (a newer one) or `condition_failed` (refused).
 */
export async function applyMessageCommands(
  trx: Kysely<Database>,
  commands: readonly MessageCommand[],
): Promise<MessageCommandResult[]> {
  const results: (MessageCommandResult | undefined)[] = commands.map(() => undefined);
  const promoted = await promote(trx, commands, results);
  const planned = commands.map((c, i) => (results[i] === undefined ? plan(c) : { parts: [] }));
  const { applied, partApplied } = await writeRows(trx, planned);
  const unsettled = commands.flatMap((c, i) =>
    results[i] === undefined &&
    c.kind !== 'save_user_message' &&
    !(c.kind === 'save_part' ? partApplied : applied).has(i)
      ? [i]
      : [],
  );
  const stored = await storedVersions(trx, unsettled, planned);
  return commands.map((c, i): MessageCommandResult => {
    const done = results[i];
    if (done !== undefined) return done;
    if (c.kind === 'save_user_message') {
      return { outcome: promoted.get(i) === 'already_promoted' ? 'duplicate' : 'applied' };
    }
    const p = planned[i] as Planned;
    const write = p.message ?? p.parts[0];
    if (write === undefined || (c.kind === 'save_part' ? partApplied : applied).has(i)) {
      return { outcome: 'applied' };
    }
    const s = stored.get(write.id);
    const same =
      s !== undefined &&
      s.version === write.version &&
      (p.message !== undefined || s.status === ((write as PartInput).status ?? null));
    return { outcome: same ? 'duplicate' : 'stale' };
  });
}

/**
 * Writes the planned messages and parts (folded, in rounds; the first round of both tables
 * in one statement) and returns which commands' message and part writes were applied.
 */
async function writeRows(
  trx: Kysely<Database>,
  planned: readonly Planned[],
): Promise<{ applied: Set<number>; partApplied: Set<number> }> {
  const messageWrites = planned.flatMap((p, i) =>
    p.message ? [{ i, row: p.message, absorbed: [] as number[] }] : [],
  );
  const partWrites = planned.flatMap((p, i) =>
    p.parts.map((row) => ({ i, row, absorbed: [] as number[] })),
  );
  const messageRounds = foldedRounds(
    messageWrites,
    (w) => w.row.id,
    (k, n) => absorb(k, n, foldMessageWrite(k.row, n.row)),
  );
  const partRounds = foldedRounds(
    partWrites,
    (w) => w.row.id,
    (k, n) => absorb(k, n, foldPartWrite(k.row, n.row)),
  );
  const applied = new Set<number>();
  const partApplied = new Set<number>();
  const mark = (round: readonly Write<{ id: string }>[], ids: Set<string>, into: Set<number>) => {
    for (const w of round) if (ids.has(w.row.id)) for (const i of [w.i, ...w.absorbed]) into.add(i);
  };
  let [m0, ...mRest] = messageRounds;
  let [p0, ...pRest] = partRounds;
  if (m0 !== undefined && p0 !== undefined) {
    // The first round of both tables in one statement (one round trip).
    const { messages, parts } = await upsertMessagesAndParts(trx, m0, p0);
    mark(m0, messages, applied);
    mark(p0, parts, partApplied);
    [m0, p0] = [undefined, undefined];
  }
  for (const round of m0 === undefined ? mRest : [m0, ...mRest]) {
    mark(
      round,
      await upsertMessages(
        trx,
        round.map((w) => w.row),
      ),
      applied,
    );
  }
  for (const round of p0 === undefined ? pRest : [p0, ...pRest]) {
    mark(
      round,
      await upsertParts(
        trx,
        round.map((w) => w.row),
      ),
      partApplied,
    );
  }
  return { applied, partApplied };
}

/** Upserts messages and parts in one statement; returns the ids written, per table. */
async function upsertMessagesAndParts(
  trx: Kysely<Database>,
  messages: readonly Write<MessageInput>[],
  parts: readonly Write<PartInput>[],
): Promise<{ messages: Set<string>; parts: Set<string> }> {
  const m = upsertMessagesSql(messages.map((w) => w.row));
  const p = upsertPartsSql(parts.map((w) => w.row));
  const result = await sql<{ t: string; id: string }>`with m as (${m}), p as (${p})
    select 'm' as t, id from m union all select 'p' as t, id from p`.execute(trx);
  const out = { messages: new Set<string>(), parts: new Set<string>() };
  for (const r of result.rows) (r.t === 'm' ? out.messages : out.parts).add(r.id);
  return out;
}

/** A write carrying the commands whose writes were folded into it. */
interface Write<R> {
  readonly i: number;
  readonly row: R;
  readonly absorbed: number[];
}

/**
 * The folded write of `kept` then `next` given the row `fold` kept (or `undefined`): the
 * winner absorbs the other command, which counts as applied when the winner is written.
 */
function absorb<R>(kept: Write<R>, next: Write<R>, row: R | undefined): Write<R> | undefined {
  if (row === undefined) return undefined;
  const [winner, loser] = row === next.row ? [next, kept] : [kept, next];
  return { ...winner, absorbed: [...kept.absorbed, ...next.absorbed, loser.i] };
}

/**
 * Promotes the ledger rows of the batch's user messages (rounds of distinct ids, only from
 * `admitted`), then reads back the rows it did not move: the same message already
 * promoted is a duplicate; any other terminal state refuses the command.
 */
async function promote(
  trx: Kysely<Database>,
  commands: readonly MessageCommand[],
  results: (MessageCommandResult | undefined)[],
): Promise<Map<number, 'promoted' | 'already_promoted'>> {
  const outcome = new Map<number, 'promoted' | 'already_promoted'>();
  const promotions = commands.flatMap((c, i) =>
    c.kind === 'save_user_message' && c.promoteInputId !== undefined ? [{ i, c }] : [],
  );
  if (promotions.length === 0) return outcome;
  const missed: { i: number; key: string; sessionId: string; id: string; messageId: string }[] = [];
  const keyOf = (c: MessageCommand & { kind: 'save_user_message' }) =>
    ledgerKey(c.sessionId, c.promoteInputId as string);
  for (const round of rounds(promotions, (p) => keyOf(p.c))) {
    const ids = await settleInputs(
      trx,
      round.map(({ c }) => promotionRow(c, c.promoteInputId as string)),
    );
    for (const { i, c } of round) {
      if (ids.has(keyOf(c))) outcome.set(i, 'promoted');
      else
        missed.push({
          i,
          key: keyOf(c),
          sessionId: c.sessionId,
          id: c.promoteInputId as string,
          messageId: c.message.id,
        });
    }
  }
  if (missed.length === 0) return outcome;
  const rows = await sql<{ key: string; status: string; message_id: string | null }>`
    select session_id || '/' || id as key, status, message_id from session_inputs
    where (session_id, id) in (select * from unnest(${missed.map((m) => m.sessionId)}::text[],
      ${missed.map((m) => m.id)}::text[]))`.execute(trx);
  const byKey = new Map(rows.rows.map((r) => [r.key, r]));
  for (const m of missed) {
    const row = byKey.get(m.key);
    if (row?.status === 'promoted' && row.message_id === m.messageId) {
      outcome.set(m.i, 'already_promoted');
    } else {
      const status = (row?.status ?? 'admitted') as LedgerStatusValue;
      const messageId = row?.message_id ?? null;
      results[m.i] = { outcome: 'condition_failed', refused: { status, messageId } };
    }
  }
  return outcome;
}

/** The ledger write of a user message's promotion of `inputId` (R14.2). */
function promotionRow(c: PersistenceCommandOf<'save_user_message'>, inputId: string): SettleRow {
  return {
    id: inputId,
    sessionId: c.sessionId,
    status: 'promoted',
    reason: null,
    messageId: c.message.id,
    sequence: c.promotedSequenceNumber ?? null,
    at: c.issuedAt,
  };
}

/**
 * One `save_user_message` applied alone in one statement, outside any transaction block
 * (docs/decisions/0247): its promotion, when it has one, and its message and parts in one
 * data-modifying `WITH`, the rows written only when the promotion settled. One round trip
 * instead of five (begin, ledger lock, promotion, rows, commit) on the path every prompt
 * waits for (flow 1). A single statement is atomic, and it takes no advisory lock: it
 * locks the ledger row, then its message and parts, waiting on nothing while it holds a
 * lock another writer waits for (`lockKeys`' other writers lock a ledger row before a
 * message too).
 *
 * Returns what {@link applyMessageCommands} would have returned, or `undefined` when the
 * promotion did not settle (already promoted, or closed): nothing was written, and the
 * caller applies the command with {@link applyMessageCommands}, which tells the two apart.
 */
export async function applyUserMessageAlone(
  db: Kysely<Database>,
  c: PersistenceCommandOf<'save_user_message'>,
): Promise<MessageCommandResult | undefined> {
  const planned = plan(c);
  const messages = planned.message === undefined ? [] : [planned.message];
  if (c.promoteInputId === undefined) {
    await sql`with m as (${upsertMessagesSql(messages)}), p as (${upsertPartsSql(planned.parts)})
      select 1`.execute(db);
    return { outcome: 'applied' };
  }
  const settled = sql`exists (select 1 from s)`;
  const result = await sql<{ settled: boolean }>`with
      s as (${settleInputsSql([promotionRow(c, c.promoteInputId)])}),
      m as (${upsertMessagesSql(messages, settled)}),
      p as (${upsertPartsSql(planned.parts, settled)})
    select ${settled} as settled`.execute(db);
  return result.rows[0]?.settled === true ? { outcome: 'applied' } : undefined;
}

/** The stored version (and part status) of the rows of commands that did not apply. */
async function storedVersions(
  trx: Kysely<Database>,
  indexes: readonly number[],
  planned: readonly Planned[],
): Promise<Map<string, { version: number; status: string | null }>> {
  const out = new Map<string, { version: number; status: string | null }>();
  const messageIds = indexes.flatMap((i) => planned[i]?.message?.id ?? []);
  const partIds = indexes.flatMap((i) =>
    planned[i]?.message === undefined ? (planned[i]?.parts[0]?.id ?? []) : [],
  );
  if (messageIds.length === 0 && partIds.length === 0) return out;
  const result = await sql<{ id: string; version: number; status: string | null }>`
    select id, version, null::text as status from messages where id = any(${messageIds}::text[])
    union all
    select id, version, status from parts where id = any(${partIds}::text[])`.execute(trx);
  for (const r of result.rows) out.set(r.id, { version: Number(r.version), status: r.status });
  return out;
}
