import { type Kysely, type RawBuilder, sql } from 'kysely';
import type {
  AdmitInputArgs,
  LedgerCloseStatus,
  LedgerDeliveryValue,
} from './ledger-repository.ts';
import { admitConflictSet, closeDeliverySet, mergeDeliverySet } from './ledger-sql.ts';
import type { MessageInput, PartInput, ToolStatusValue } from './messages-repository.ts';
import type { Database } from './schema.ts';
import { toDate } from './transaction.ts';

/**
 * Set-based versions of the repositories' writes (docs/decisions/0035): each function
 * writes many rows of one table in one statement, `INSERT ... SELECT FROM
 * jsonb_to_recordset($1) ... ON CONFLICT DO UPDATE ... WHERE <the same rule as the
 * one-row write>`, and returns the ids it wrote. Postgres refuses to touch one row twice in
 * a statement, so callers split their rows into {@link rounds} first: round k holds the
 * k-th write of each id, and applying the rounds in turn is applying the writes in order.
 */

/** Splits `items` into rounds in which each key occurs once, keeping their order. */
export function rounds<T>(items: readonly T[], key: (item: T) => string): T[][] {
  return foldedRounds(items, key, () => undefined);
}

/**
 * Like {@link rounds}, but first folds consecutive writes of one key where applying `kept`
 * then `next` is provably the same as applying one of them: `fold` returns that one, or
 * `undefined` when both must be applied (the next one goes to a later round). Each round
 * is sorted by key.
 */
export function foldedRounds<T>(
  items: readonly T[],
  key: (item: T) => string,
  fold: (kept: T, next: T) => T | undefined,
): T[][] {
  const chains = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const chain = chains.get(k);
    if (chain === undefined) {
      chains.set(k, [item]);
      continue;
    }
    const last = chain.length - 1;
    const merged = fold(chain[last] as T, item);
    if (merged === undefined) chain.push(item);
    else chain[last] = merged;
  }
  const out: T[][] = [];
  // Each round in key order, so that concurrent writers lock rows in one order.
  const ordered = [...chains].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, chain] of ordered) {
    for (const [n, item] of chain.entries()) {
      const round = out[n];
      if (round === undefined) out.push([item]);
      else round.push(item);
    }
  }
  return out;
}

/**
 * The message write equal to `kept` then `next` (the version rule is a total order, first
 * wins on ties): always one of them.
 */
export function foldMessageWrite<T extends { readonly version: number }>(kept: T, next: T): T {
  return next.version > kept.version ? next : kept;
}

/**
 * The part write equal to `kept` then `next` under the part rule ((status rank, version)
 * grows; a terminal status never changes), or `undefined` when none is: only when `kept` is
 * terminal and `next` has the other terminal status. A non-terminal write followed by a
 * greater one, or a terminal one by a greater one of the same status, is replaced by it;
 * a write followed by one that is not greater (and not the other terminal) drops the latter.
 */
export function foldPartWrite<T extends Pick<PartInput, 'status' | 'version'>>(
  kept: T,
  next: T,
): T | undefined {
  const rank = (p: T) => (p.status === undefined ? 0 : STATUS_RANK[p.status]);
  const keptTerminal = rank(kept) === 2;
  if (keptTerminal && next.status !== kept.status) return undefined;
  const greater =
    rank(next) > rank(kept) || (rank(next) === rank(kept) && next.version > kept.version);
  return greater ? next : kept;
}

const STATUS_RANK: Readonly<Record<ToolStatusValue, number>> = {
  pending: 0,
  running: 1,
  completed: 2,
  error: 2,
};

const iso = (at: number | string | Date): string => toDate(at).toISOString();

async function writtenIds(db: Kysely<Database>, query: RawBuilder<{ id: string }>) {
  const result = await query.execute(db);
  return new Set(result.rows.map((r) => r.id));
}

/** Many {@link saveMessage}s of distinct ids: inserted, or replaced by a greater version. */
export function upsertMessages(db: Kysely<Database>, rows: readonly MessageInput[]) {
  return writtenIds(db, upsertMessagesSql(rows));
}

/** `where <guard>`, or nothing. */
function whereGuard(guard: RawBuilder<unknown> | undefined): RawBuilder<unknown> {
  return guard === undefined ? sql`` : sql`where ${guard}`;
}

/**
 * The statement of {@link upsertMessages} (returns the ids written). `guard`, when given, is a
 * condition every row's write depends on (a data-modifying `WITH` writes the rows only when
 * an earlier write in the same statement did, e.g. a promotion).
 */
export function upsertMessagesSql(
  rows: readonly MessageInput[],
  guard?: RawBuilder<unknown>,
): RawBuilder<{ id: string }> {
  const data = rows.map((m) => ({
    id: m.id,
    session_id: m.sessionId,
    role: m.role,
    data: m.data,
    version: m.version,
    created_at: iso(m.createdAt),
  }));
  return sql<{ id: string }>`insert into messages (id, session_id, role, data, version, created_at)
      select id, session_id, role, data, version, created_at
      from jsonb_to_recordset(${JSON.stringify(data)}::jsonb) as r(id text, session_id text,
        role text, data jsonb, version bigint, created_at timestamptz)
      ${whereGuard(guard)}
      on conflict (id) do update set data = excluded.data, version = excluded.version,
        created_at = excluded.created_at
      where messages.version < excluded.version
      returning id`;
}

/** Many {@link savePart}s of distinct ids: (status rank, version) grows; terminal is final. */
export function upsertParts(db: Kysely<Database>, rows: readonly PartInput[]) {
  return writtenIds(db, upsertPartsSql(rows));
}

/**
 * The statement of {@link upsertParts} (returns the ids written). `guard`, when given, is a
 * condition every row's write depends on (as in {@link upsertMessagesSql}).
 */
export function upsertPartsSql(
  rows: readonly PartInput[],
  guard?: RawBuilder<unknown>,
): RawBuilder<{ id: string }> {
  const data = rows.map((p) => ({
    id: p.id,
    message_id: p.messageId,
    session_id: p.sessionId,
    type: p.type,
    status: p.status ?? null,
    status_rank: p.status === undefined ? 0 : STATUS_RANK[p.status],
    data: p.data,
    version: p.version,
  }));
  return sql<{
    id: string;
  }>`insert into parts (id, message_id, session_id, type, status, status_rank, data, version)
      select id, message_id, session_id, type, status, status_rank, data, version
      from jsonb_to_recordset(${JSON.stringify(data)}::jsonb) as r(id text, message_id text,
        session_id text, type text, status text, status_rank smallint, data jsonb, version bigint)
      ${whereGuard(guard)}
      on conflict (id) do update set status = excluded.status,
        status_rank = excluded.status_rank, data = excluded.data, version = excluded.version
      where (parts.status_rank, parts.version) < (excluded.status_rank, excluded.version)
        and not (parts.status_rank = 2 and parts.status is distinct from excluded.status)
      returning id`;
}

/** A session entry row for {@link insertEntries} / {@link upsertKeyedEntries}. */
export interface EntryRow {
  readonly id: string;
  readonly sessionId: string;
  readonly type: string;
  readonly key: string | null;
  readonly eventId: string;
  readonly sequence: number;
  readonly data: unknown;
  readonly createdAt: number | string | Date;
}

function entryData(rows: readonly EntryRow[]): string {
  return JSON.stringify(
    rows.map((e) => ({
      id: e.id,
      session_id: e.sessionId,
      type: e.type,
      key: e.key,
      event_id: e.eventId,
      sequence: e.sequence,
      data: e.data,
      created_at: iso(e.createdAt),
    })),
  );
}

const ENTRY_SELECT = (json: string) => sql`select id, session_id, type, key, event_id, sequence,
    data, created_at from jsonb_to_recordset(${json}::jsonb) as r(id text, session_id text,
    type text, key text, event_id text, sequence bigint, data jsonb, created_at timestamptz)`;

/** The statement of {@link insertEntries}. */
export function insertEntriesSql(rows: readonly EntryRow[]): RawBuilder<unknown> {
  return sql`insert into session_entries (id, session_id, type, key, event_id, sequence, data,
      created_at) ${ENTRY_SELECT(entryData(rows))}
    on conflict (id) do nothing`;
}

/** The statement of {@link upsertKeyedEntries}. */
export function upsertKeyedEntriesSql(rows: readonly EntryRow[]): RawBuilder<unknown> {
  return sql`insert into session_entries (id, session_id, type, key, event_id, sequence, data,
      created_at) ${ENTRY_SELECT(entryData(rows))}
    on conflict (id) do update set event_id = excluded.event_id, sequence = excluded.sequence,
      data = excluded.data, created_at = excluded.created_at
    where session_entries.sequence < excluded.sequence`;
}

/** The statement of {@link advanceLastSequences} (session rows in id order). */
export function advanceLastSequencesSql(marks: ReadonlyMap<string, number>): RawBuilder<unknown> {
  // Sorted, so that every writer locks session rows in one order (no deadlock).
  const sorted = [...marks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = JSON.stringify(sorted.map(([id, seq]) => ({ id, seq })));
  return sql`insert into sessions (id, last_sequence)
    select id, seq from jsonb_to_recordset(${data}::jsonb) as r(id text, seq bigint)
    on conflict (id) do update set last_sequence = excluded.last_sequence
    where sessions.last_sequence < excluded.last_sequence`;
}

/**
 * Runs several writes to *different* tables as one statement (data-modifying `WITH`), one
 * round trip instead of one each. Writes to one table must not be combined: Postgres
 * does not let one statement touch a row twice, nor one sub-statement see another's rows.
 */
export async function writeTogether(
  db: Kysely<Database>,
  statements: readonly RawBuilder<unknown>[],
): Promise<void> {
  const [first, ...rest] = statements;
  if (first === undefined) return;
  if (rest.length === 0) {
    await first.execute(db);
    return;
  }
  const ctes = statements.map((s, i) => sql`${sql.raw(`w${i}`)} as (${s})`);
  await sql`with ${sql.join(ctes)} select 1`.execute(db);
}

const assignments = (set: Record<string, RawBuilder<unknown>>) =>
  sql.join(Object.entries(set).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
const MERGE_DELIVERY = assignments(mergeDeliverySet);
const ADMIT = assignments(admitConflictSet);
const CLOSE_DELIVERY = assignments(closeDeliverySet);

/** An admission (`turn_steer_queued`) for {@link admitInputs}: the row `admitInput` takes. */
export type AdmitRow = AdmitInputArgs;

/** Many {@link admitInput}s of distinct rows (`ledgerKey`). */
export async function admitInputs(db: Kysely<Database>, rows: readonly AdmitRow[]) {
  const data = JSON.stringify(
    rows.map((a) => ({
      id: a.id,
      session_id: a.sessionId,
      kind: a.kind,
      delivery: a.delivery,
      deliveries: { [a.sequence]: a.delivery },
      payload: a.payload,
      seq: a.sequence,
      admitted_at: iso(a.at),
    })),
  );
  await sql`insert into session_inputs (id, session_id, kind, delivery, delivery_seq,
      deliveries, payload, payload_seq, admitted_seq, position, status, admitted_at)
    select id, session_id, kind, delivery, seq, deliveries, payload, seq, seq, seq, 'admitted',
      admitted_at
    from jsonb_to_recordset(${data}::jsonb) as r(id text, session_id text, kind text,
      delivery text, deliveries jsonb, payload jsonb, seq bigint, admitted_at timestamptz)
    on conflict (session_id, id) do update set ${ADMIT}`.execute(db);
}

/** A delivery change for {@link changeInputDeliveries}. */
export interface DeliveryChangeRow {
  readonly id: string;
  readonly sessionId: string;
  readonly delivery: LedgerDeliveryValue;
  readonly sequence: number;
}

/** Many {@link changeInputDelivery}s of distinct rows (facts merged, docs/decisions/0034). */
export async function changeInputDeliveries(
  db: Kysely<Database>,
  rows: readonly DeliveryChangeRow[],
) {
  const data = JSON.stringify(
    rows.map((c) => ({
      id: c.id,
      session_id: c.sessionId,
      delivery: c.delivery,
      seq: c.sequence,
      deliveries: { [c.sequence]: c.delivery },
    })),
  );
  await sql`insert into session_inputs (id, session_id, delivery, delivery_seq, deliveries,
      status)
    select id, session_id, delivery, seq, deliveries, 'admitted'
    from jsonb_to_recordset(${data}::jsonb) as r(id text, session_id text, delivery text,
      seq bigint, deliveries jsonb)
    on conflict (session_id, id) do update set ${MERGE_DELIVERY}`.execute(db);
}

/** A close (cancelled, discarded, failed) or a promotion for {@link settleInputs}. */
export interface SettleRow {
  readonly id: string;
  readonly sessionId: string;
  readonly status: LedgerCloseStatus | 'promoted';
  readonly reason: string | null;
  readonly messageId: string | null;
  readonly sequence: number | null;
  readonly at: number | string | Date;
}

/**
 * Many {@link closeInput}s / {@link promoteInput}s of distinct rows: only an `admitted` row
 * moves to its terminal state (R14.2). Returns the {@link ledgerKey}s settled by this call.
 */
export function settleInputs(db: Kysely<Database>, rows: readonly SettleRow[]) {
  return writtenIds(db, settleInputsSql(rows));
}

/** The statement of {@link settleInputs} (returns the ledger keys settled). */
export function settleInputsSql(rows: readonly SettleRow[]): RawBuilder<{ id: string }> {
  const data = JSON.stringify(
    rows.map((s) => ({
      id: s.id,
      session_id: s.sessionId,
      status: s.status,
      status_reason: s.reason,
      message_id: s.messageId,
      promoted_seq: s.status === 'promoted' ? s.sequence : null,
      status_seq: s.sequence,
      settled_at: iso(s.at),
    })),
  );
  return sql<{ id: string }>`insert into session_inputs (id, session_id, status, status_reason,
        message_id, promoted_seq, status_seq, settled_at)
      select id, session_id, status, status_reason, message_id, promoted_seq, status_seq,
        settled_at
      from jsonb_to_recordset(${data}::jsonb) as r(id text, session_id text, status text,
        status_reason text, message_id text, promoted_seq bigint, status_seq bigint,
        settled_at timestamptz)
      on conflict (session_id, id) do update set status = excluded.status,
        status_reason = excluded.status_reason, message_id = excluded.message_id,
        promoted_seq = excluded.promoted_seq, status_seq = excluded.status_seq,
        settled_at = excluded.settled_at, ${CLOSE_DELIVERY}
      where session_inputs.status = 'admitted'
      returning session_id || '/' || id as id`;
}
