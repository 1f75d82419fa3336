import { activeChain } from '@agentwire/domain';
import type { TranscriptPart, TranscriptRow } from '@agentwire/engine';
import { sql } from 'kysely';
import type { StoreDb } from './session-loader.ts';

/** What one column of a compact row must hold: a type, a nullable one, or one of values. */
type Column = 'string' | 'string?' | 'boolean' | 'any' | ReadonlySet<string>;

/** @internal Exported for its tests. */
export const PART_COLUMNS: readonly Column[] = [
  'string',
  new Set(['text', 'tool', 'file']),
  'string?',
  'string?',
  'string?',
  'string?',
  'any',
  'string?',
  'string?',
  'string?',
  'string?',
];
const MESSAGE_COLUMNS: readonly Column[] = [
  'string',
  new Set(['user', 'assistant']),
  'string?',
  'boolean',
  'string?',
  'string?',
];

function fits(value: unknown, column: Column): boolean {
  if (column === 'any') return true;
  if (column === 'string') return typeof value === 'string';
  if (column === 'string?') return value === null || typeof value === 'string';
  if (column === 'boolean') return typeof value === 'boolean';
  return typeof value === 'string' && column.has(value);
}

/**
 * The rows of one aggregated document, checked at this boundary column by column: a row
 * that does not fit names itself. A hand-written check, because a schema library's costs
 * a third of the cold open on 50,000 parts (issue 16).
 *
 * @internal Exported for its tests.
 */
export function compactRows<T>(
  doc: string | null | undefined,
  what: string,
  columns: readonly Column[],
): T[] {
  const rows: unknown = JSON.parse(doc ?? '[]');
  if (!Array.isArray(rows)) throw new Error(`${what}: the aggregate is not an array`);
  for (let i = 0; i < rows.length; i += 1) {
    const row: unknown = rows[i];
    if (!Array.isArray(row) || row.length !== columns.length) {
      throw new Error(`${what} row ${i}: not a row of ${columns.length} columns`);
    }
    for (let c = 0; c < columns.length; c += 1) {
      if (!fits(row[c], columns[c] as Column)) {
        throw new Error(`${what} row ${i} column ${c}: unexpected ${JSON.stringify(row[c])}`);
      }
    }
  }
  return rows as T[];
}

type PartRow = [
  string,
  TranscriptPart['type'],
  string | null,
  string | null,
  string | null,
  string | null,
  unknown,
  string | null,
  string | null,
  string | null,
  string | null,
];
/** The last column is `treeParentId`: null when absent (a row from before the tree), '' for none. */
type MessageRow = [
  string,
  TranscriptRow['role'],
  string | null,
  boolean,
  string | null,
  string | null,
];

/** The chain's rows with their parts, and its leaf (docs/decisions/0239). */
export interface LoadedTranscript {
  readonly rows: TranscriptRow[];
  readonly leaf?: { readonly id: string; readonly parentId: string | null };
}

/**
 * Where the model's history starts (docs/decisions/0229): at the prompt the session's last
 * compaction kept (its last real prompt before the summary), else the summary itself;
 * undefined without a compaction. In the transcript's order, `created_at` then `id`.
 */
async function historyStart(
  db: StoreDb,
  sessionId: string,
): Promise<{ readonly at: Date; readonly id: string; readonly summary: string } | undefined> {
  const { rows } = await sql<{ at: Date | null; id: string | null; summary: string | null }>`
    with s as (
      select created_at, id from messages
      where session_id = ${sessionId} and data -> 'semantics' ->> 'kind' = 'compact_summary'
      order by created_at desc, id desc limit 1
    ), k as (
      select m.created_at, m.id from messages m, s
      where m.session_id = ${sessionId} and m.role = 'user'
        and not coalesce((m.data ->> 'synthetic')::boolean, false)
        and (m.created_at, m.id) < (s.created_at, s.id)
      order by m.created_at desc, m.id desc limit 1
    )
    select coalesce(k.created_at, s.created_at) as at, coalesce(k.id, s.id) as id, s.id as summary
    from s left join k on true`.execute(db);
  const row = rows[0];
  return row?.at == null || row.id == null || row.summary == null
    ? undefined
    : { at: new Date(row.at), id: row.id, summary: row.summary };
}

/**
 * The session's real user turns, however many a compaction summarised (turn numbering
 * continues after recovery): its user messages that are not synthetic.
 */
export async function countUserTurns(db: StoreDb, sessionId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from messages
    where session_id = ${sessionId} and role = 'user'
      and not coalesce((data ->> 'synthetic')::boolean, false)`.execute(db);
  return rows[0]?.n ?? 0;
}

/** The session's message rows (in the transcript's order) and parts by message, from `from`. */
async function readRows(
  db: StoreDb,
  sessionId: string,
  start: { readonly at: Date; readonly id: string } | undefined,
): Promise<{ messages: MessageRow[]; byMessage: Map<string, TranscriptPart[]> }> {
  const from =
    start === undefined ? sql`` : sql`and (m.created_at, m.id) >= (${start.at}, ${start.id})`;
  const [messages, parts] = await Promise.all([
    // Each aggregate takes its rows in the order of a subquery an index delivers sorted
    // (messages_chain_idx, parts_session_order_idx): an ordered aggregate sorts them itself.
    sql<{ doc: string | null }>`
      select json_agg(json_build_array(
        m.id, m.role, m.data -> 'semantics' ->> 'providerVisibility',
        coalesce((m.data ->> 'synthetic')::boolean, false), m.data -> 'semantics' ->> 'kind',
        case when m.tree_linked then coalesce(m.tree_parent, '') end
      ))::text as doc
      from (
        select m.id, m.role, m.data, m.tree_linked, m.tree_parent from messages m
        where m.session_id = ${sessionId} ${from}
        order by m.created_at, m.id
      ) m`.execute(db),
    sql<{ doc: string | null }>`
      select json_agg(json_build_array(
        p.message_id, p.type, p.data ->> 'text', p.data ->> 'toolCallId', p.data ->> 'toolName',
        p.data -> 'state' ->> 'status', p.data -> 'state' -> 'input',
        p.data -> 'state' ->> 'output', p.data -> 'state' ->> 'error',
        p.data ->> 'url', p.data ->> 'filename'
      ))::text as doc
      from (
        select p.message_id, p.type, p.data from parts p
        where p.session_id = ${sessionId} and p.type in ('text', 'tool', 'file')
          ${
            start === undefined
              ? sql``
              : sql`and p.message_id in (
                  select m.id from messages m where m.session_id = ${sessionId} ${from})`
          }
        order by p.message_id, p.id
      ) p`.execute(db),
  ]);
  const byMessage = new Map<string, TranscriptPart[]>();
  for (const [
    messageId,
    type,
    text,
    toolCallId,
    toolName,
    status,
    input,
    output,
    error,
    url,
    filename,
  ] of compactRows<PartRow>(parts.rows[0]?.doc, 'parts', PART_COLUMNS)) {
    let list = byMessage.get(messageId);
    if (list === undefined) {
      list = [];
      byMessage.set(messageId, list);
    }
    list.push({
      type,
      text,
      toolCallId,
      toolName,
      status,
      input: input ?? null,
      output,
      error,
      url,
      filename,
    });
  }
  return {
    messages: compactRows<MessageRow>(messages.rows[0]?.doc, 'messages', MESSAGE_COLUMNS),
    byMessage,
  };
}

/** A row's `treeParentId` column as the tree reads it: '' is none, null is not given. */
const treeRow = (m: MessageRow) => ({
  id: m[0],
  treeParentId: m[5] === null ? undefined : m[5] === '' ? null : m[5],
  row: m,
});

/**
 * Reads what the model's history needs from a session's messages and parts (cold
 * recovery, R10.4), along the active chain ending at `leafId` (the current leaf when
 * absent; docs/decisions/0239): two queries, run in parallel, in which Postgres projects
 * the few JSON fields used and aggregates each result into one JSON document, parsed once
 * and checked column by column at this boundary. Reading full rows and parsing every part
 * with its contract schema cost about 1 s for 10,000 messages and 50,000 parts. After a
 * compaction only the rows from the prompt it kept on are read (issue 16, 0229): the
 * history starts at the summary, the earlier rows were summarised. When the chain leaves
 * those rows (the compaction lies on another branch, or `leafId` before it), every row is
 * read. This is the runtime's only read of Postgres besides the session row and its turn
 * count.
 */
export async function loadTranscriptRows(
  db: StoreDb,
  sessionId: string,
  leafId?: string,
): Promise<LoadedTranscript> {
  const start = await historyStart(db, sessionId);
  let read = await readRows(db, sessionId, start);
  let chain = activeChain(read.messages.map(treeRow), leafId);
  const first = chain[0];
  // The rows read from the kept prompt on hold the whole chain, and its compaction.
  const cut =
    start !== undefined &&
    (first === undefined ||
      (first.id !== start.id && first.treeParentId !== null) ||
      !chain.some((m) => m.id === start.summary) ||
      (leafId !== undefined && chain.at(-1)?.id !== leafId));
  if (cut) {
    read = await readRows(db, sessionId, undefined);
    chain = activeChain(read.messages.map(treeRow), leafId);
  }
  const { byMessage } = read;
  const rows = chain.map(({ row: [id, role, providerVisibility, synthetic, kind] }) => ({
    role,
    providerVisibility,
    synthetic,
    kind,
    parts: byMessage.get(id) ?? [],
  }));
  const leaf = chain.at(-1);
  if (leaf === undefined) return { rows };
  const parentId = chain.at(-2)?.id ?? null;
  return { rows, leaf: { id: leaf.id, parentId } };
}
