import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, MessageRow, PartRow } from './schema.ts';
import { inReadSnapshot } from './transaction.ts';

/**
 * The read side's history pages (DESIGN.md "The read side"): one session's messages with
 * their parts, along its active chain only (docs/decisions/0239), keyset-paged by the
 * message row's `(created_at, id)`, compared inside Postgres. A page reports the chain it
 * was read along so the next page can reuse it (docs/decisions/0248).
 */

/** Where a history page starts. */
export type HistoryStart =
  | { readonly from: 'start' | 'end' }
  /**
   * Messages strictly older or newer than the message `pivot`; `chain`, when given, is the
   * active chain an earlier page was read along (its {@link HistoryPage} `chain`), which this
   * page reuses while the session's leaf is still that chain's leaf (docs/decisions/0248).
   */
  | {
      readonly pivot: string;
      readonly direction: 'older' | 'newer';
      readonly chain?: ChainRuns | undefined;
    };

/**
 * The active chain a page was read along (docs/decisions/0248): the session's leaf then,
 * and the chain's runs (see {@link activeChainRuns}), newest first, each as the ids of its
 * first and last message. Every message whose key lies within a run is on the chain.
 */
export interface ChainRuns {
  readonly leaf: string;
  readonly runs: readonly (readonly [first: string, last: string])[];
}

/** A stored message with its stored parts (id order). */
export interface StoredMessage {
  readonly message: MessageRow;
  readonly parts: PartRow[];
}

/** What {@link readHistoryPage} found. */
export type HistoryPage =
  | { readonly found: false; readonly reason: 'no_session' | 'no_pivot' }
  | {
      readonly found: true;
      /** Oldest first. */
      readonly messages: StoredMessage[];
      /** Messages lie beyond the page in its reading direction. */
      readonly more: boolean;
      /** `sessions.last_sequence`, read in the page's snapshot. */
      readonly lastSequence: number;
      /**
       * The chain the page was read along, for the next page to reuse: `null` when the page
       * is empty, when the walk did not reach a root (a parent not in the session, a cycle),
       * when it has more than {@link MAX_CHAIN_RUNS} runs, or when the page from the end was
       * read within one run that goes on beyond it (docs/decisions/0249).
       */
      readonly chain: ChainRuns | null;
    };

/** The most runs a {@link ChainRuns} holds; a longer chain is computed again for each page. */
export const MAX_CHAIN_RUNS = 16;

/**
 * The runs of a session's active chain (docs/decisions/0239), as the CTEs `linked`, `heads`,
 * `leaf` and `runs` of a `with recursive`. The rule is `activeChain`'s in `@agentwire/domain`:
 * a row's parent is its `treeParentId` when the key is present (JSON null: a root), else the
 * row before it in (`created_at`, `id`) order; the leaf is the newest row no row names as
 * parent (the newest row if every row is one); the chain is the leaf and its ancestors, and
 * the walk stops at a root, at a parent not in the session, or on meeting a row twice.
 *
 * A run is a stretch of the transcript order in which each row's parent is the row before it
 * (a legacy session is one run); its head is its first row. Walking the parents one row at a
 * time would be one recursive step per message, and a recursive CTE cannot use an index on
 * another CTE: every step would scan the session, 20 s for 10,000 messages. The walk goes
 * from run to run instead: from a row, back to the newest head at or before it, then to that
 * head's parent. `runs` holds each visited stretch as `first` (its head) to `last`, so the
 * recursion takes one step per branch point on the chain and one window pass over the
 * session does the rest. The pass reads the link columns (`tree_linked`, `tree_parent`,
 * docs/decisions/0245) from the session index alone, in its order, and the leaf is found
 * from the newest row back through the index of explicit children, usually at the first
 * row: the statement takes 7-8 ms for 10,000 messages (20-30 ms when the links were read
 * from every row's JSON and the leaf from a hash of all parents). Each step scans the
 * heads, so a chain through a thousand rewinds costs more. `union`, not `union all`: a cycle, which only a
 * foreign transcript can hold, repeats a row and ends the walk.
 */
function activeChainRuns(sessionId: string) {
  return sql`
    ${leafOf(sessionId)},
    linked as (
      select id, created_at, lag(id) over w as prev,
        case when tree_linked then tree_parent else lag(id) over w end as parent
      from messages where session_id = ${sessionId}
      window w as (order by created_at, id)
    ),
    heads as materialized (
      select id, created_at, parent from linked
      where parent is null or parent is distinct from prev
    ),
    runs(first_at, first_id, last_at, last_id, next) as (
      select h.created_at, h.id, l.created_at, l.id, h.parent
      from leaf l cross join lateral (
        select * from heads h where (h.created_at, h.id) <= (l.created_at, l.id)
        order by h.created_at desc, h.id desc limit 1
      ) h
      union
      select h.created_at, h.id, p.created_at, p.id, h.parent
      from runs r
      join messages p on p.id = r.next and p.session_id = ${sessionId}
      cross join lateral (
        select * from heads h where (h.created_at, h.id) <= (p.created_at, p.id)
        order by h.created_at desc, h.id desc limit 1
      ) h
    )`;
}

/**
 * The CTE `leaf` of a session's active chain (docs/decisions/0239): the newest row no row
 * names as parent, explicitly or as the row before a row without a link. Index lookups
 * only, from the newest row back.
 */
function leafOf(sessionId: string) {
  return sql`
    leaf as (
      (select m.id, m.created_at, 0 as fallback from messages m
        where m.session_id = ${sessionId}
          and not exists (
            select 1 from messages c
            where c.session_id = ${sessionId} and c.tree_linked and c.tree_parent = m.id
          )
          and coalesce((
            select n.tree_linked from messages n
            where n.session_id = ${sessionId} and (n.created_at, n.id) > (m.created_at, m.id)
            order by n.created_at, n.id limit 1
          ), true)
        order by m.created_at desc, m.id desc limit 1)
      union all
      (select m.id, m.created_at, 1 from messages m
        where m.session_id = ${sessionId} order by m.created_at desc, m.id desc limit 1)
      order by fallback limit 1
    )`;
}

/** A page from the end, or older than a pivot, reads the newest messages first. */
const readsNewestFirst = (start: HistoryStart): boolean =>
  'pivot' in start ? start.direction === 'older' : start.from === 'end';

/** A page's rows, and the chain it was read along (see {@link HistoryPage}). */
interface ChainPage {
  readonly rows: MessageRow[];
  readonly chain: ChainRuns | null;
}

/** How the full statement reports its chain: once per row, as text, parsed once. */
interface ChainReport {
  readonly leaf: string;
  readonly complete: boolean;
  readonly runs: [string, string][];
}

/**
 * Up to `limit` messages of the active chain beyond `start`'s key, in reading order, and the
 * chain they were read along.
 *
 * Given an earlier page's chain, the page is read along its runs, by their ids, in one
 * statement of index lookups, and only while the session's leaf is still that chain's leaf
 * (docs/decisions/0248). Every write that changes the chain changes the leaf: each message
 * written becomes the leaf, a move writes its notice as the newest row, and a rewrite keeps
 * its parent. Otherwise, or when that read finds no row (the end of the chain, or another
 * leaf), the chain is computed again ({@link activeChainRuns}: one pass over the session).
 * The page from the end is read back from the leaf instead while it lies within one run
 * ({@link readLeafRun}, docs/decisions/0249).
 */
async function readChainRows(
  trx: Transaction<Database>,
  sessionId: string,
  start: HistoryStart,
  limit: number,
): Promise<ChainPage> {
  const newestFirst = readsNewestFirst(start);
  const order = sql.raw(newestFirst ? 'desc' : 'asc');
  const key =
    'pivot' in start
      ? sql`(select created_at, id from messages where id = ${start.pivot})`
      : undefined;
  const beyond =
    key === undefined
      ? sql``
      : newestFirst
        ? sql`and (m.created_at, m.id) < ${key}`
        : sql`and (m.created_at, m.id) > ${key}`;
  const onRuns = sql`exists (
      select 1 from runs r
      where (m.created_at, m.id) between (r.first_at, r.first_id) and (r.last_at, r.last_id)
    )`;
  if (!('pivot' in start) && start.from === 'end') {
    const fromLeaf = await readLeafRun(trx, sessionId, limit);
    if (fromLeaf !== undefined) return fromLeaf;
  }
  const given = 'pivot' in start ? start.chain : undefined;
  if (given !== undefined && given.runs.length > 0) {
    const { rows } = await sql<MessageRow>`
      with ${leafOf(sessionId)},
      runs as (
        select f.created_at as first_at, f.id as first_id, l.created_at as last_at, l.id as last_id
        from unnest(${given.runs.map((r) => r[0])}::text[], ${given.runs.map((r) => r[1])}::text[])
          as c(first_id, last_id)
        join messages f on f.id = c.first_id and f.session_id = ${sessionId}
        join messages l on l.id = c.last_id and l.session_id = ${sessionId}
      )
      select m.id, m.session_id, m.role, m.data, m.version, m.created_at from messages m
      where m.session_id = ${sessionId} ${beyond}
        and (select id from leaf) = ${given.leaf}
        and ${onRuns}
      order by m.created_at ${order}, m.id ${order}
      limit ${limit}`.execute(trx);
    if (rows.length > 0) return { rows, chain: given };
  }
  const { rows } = await sql<MessageRow & { chain: string | null }>`
    with recursive ${activeChainRuns(sessionId)}
    select m.id, m.session_id, m.role, m.data, m.version, m.created_at,
      (select json_build_object(
          'leaf', (select id from leaf),
          'complete', coalesce(bool_or(r.next is null), false),
          'runs', json_agg(json_build_array(r.first_id, r.last_id)
            order by r.first_at desc, r.first_id desc)
        )::text from runs r) as chain
    from messages m
    where m.session_id = ${sessionId} ${beyond} and ${onRuns}
    order by m.created_at ${order}, m.id ${order}
    limit ${limit}`.execute(trx);
  const report = rows[0]?.chain;
  return {
    rows: rows.map(({ chain: _, ...row }) => row),
    chain: report === null || report === undefined ? null : chainOf(JSON.parse(report)),
  };
}

/**
 * The page from the end when it lies within one run (docs/decisions/0249): the newest
 * `limit` rows at or before the leaf, read from the session index, are the chain's newest
 * rows as long as each row's parent is the row read after it (its predecessor in the
 * order), so no pass over the session is needed. Undefined when a row among them is the
 * head of its run with a parent elsewhere (a branch point): the caller computes the chain.
 * The chain is reported only when the walk reached a root; otherwise the next page computes
 * it, once, for the pages after it.
 */
async function readLeafRun(
  trx: Transaction<Database>,
  sessionId: string,
  limit: number,
): Promise<ChainPage | undefined> {
  const { rows } = await sql<MessageRow & { tree_linked: boolean; tree_parent: string | null }>`
    with ${leafOf(sessionId)}
    select m.id, m.session_id, m.role, m.data, m.version, m.created_at, m.tree_linked,
      m.tree_parent
    from messages m cross join leaf l
    where m.session_id = ${sessionId} and (m.created_at, m.id) <= (l.created_at, l.id)
    order by m.created_at desc, m.id desc
    limit ${limit}`.execute(trx);
  const page: MessageRow[] = [];
  for (let i = 0; i < rows.length; i++) {
    const { tree_linked: linked, tree_parent: parent, ...row } = rows[i] as (typeof rows)[number];
    page.push(row);
    const before = rows[i + 1];
    if (page.length === limit) return { rows: page, chain: null };
    // The parent: the explicit link, else the row before (none before the oldest: a root).
    const parentId = linked ? parent : (before?.id ?? null);
    if (parentId === null) {
      const leaf = page[0] as MessageRow;
      return { rows: page, chain: { leaf: leaf.id, runs: [[row.id, leaf.id]] } };
    }
    if (before === undefined || parentId !== before.id) return undefined;
  }
  // Only a session without messages gets here.
  return { rows: page, chain: null };
}

/** The chain a full read reports, if the next page can reuse it. */
function chainOf(report: ChainReport): ChainRuns | null {
  if (!report.complete || report.runs.length > MAX_CHAIN_RUNS) return null;
  return { leaf: report.leaf, runs: report.runs };
}

/** The parts of `messages`, by message id, each list in id order. */
async function readParts(
  trx: Transaction<Database>,
  messages: readonly MessageRow[],
): Promise<Map<string, PartRow[]>> {
  const byMessage = new Map<string, PartRow[]>();
  if (messages.length === 0) return byMessage;
  const parts = await trx
    .selectFrom('parts')
    .selectAll()
    .where(
      'message_id',
      'in',
      messages.map((m) => m.id),
    )
    .orderBy('message_id')
    .orderBy('id')
    .execute();
  for (const p of parts) {
    const list = byMessage.get(p.message_id);
    if (list === undefined) byMessage.set(p.message_id, [p]);
    else list.push(p);
  }
  return byMessage;
}

/**
 * One page of a session's messages with their parts, read in one repeatable-read
 * snapshot together with the session's sequence mark, so the mark and the page describe
 * the same moment of the store.
 *
 * Pages follow the session's active chain (docs/decisions/0239, see {@link activeChainRuns}):
 * messages of abandoned branches are never listed, and `more` counts chain messages only. A
 * pivot that is in the session but off the chain (a cursor taken before a rewind or a
 * navigation) is still found: the page holds the chain messages beyond its
 * (`created_at`, `id`) key, as if the pivot were on the chain at its place in the order.
 */
export async function readHistoryPage(
  db: Kysely<Database>,
  sessionId: string,
  start: HistoryStart,
  limit: number,
): Promise<HistoryPage> {
  return inReadSnapshot(db, 'readHistoryPage', async (trx) => {
    const session = await trx
      .selectFrom('sessions')
      .select('last_sequence')
      .where('id', '=', sessionId)
      .where('created_at', 'is not', null)
      .executeTakeFirst();
    if (session === undefined) return { found: false, reason: 'no_session' } as const;
    if ('pivot' in start) {
      const pivot = await trx
        .selectFrom('messages')
        .select('id')
        .where('id', '=', start.pivot)
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      if (pivot === undefined) return { found: false, reason: 'no_pivot' } as const;
    }
    const { rows, chain } = await readChainRows(trx, sessionId, start, limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    if (readsNewestFirst(start)) page.reverse();
    const parts = await readParts(trx, page);
    return {
      found: true,
      messages: page.map((message) => ({ message, parts: parts.get(message.id) ?? [] })),
      more,
      lastSequence: session.last_sequence,
      chain,
    } as const;
  });
}
