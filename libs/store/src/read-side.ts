import { type Kysely, sql } from 'kysely';
import type { Database, SessionRow } from './schema.ts';
import { inTransaction, withStoreError } from './transaction.ts';

/**
 * The read side's session queries (DESIGN.md "The read side"), used by the query service:
 * session pages, and the two writes a user asks for directly, archive and delete (R3.1,
 * R16.4). History pages are in `read-history.ts`. Session pages are keyset-paged; the key of
 * a session is its last update time in microseconds (Postgres' precision, kept as text so no
 * digit is lost) and its id, compared inside Postgres.
 */

/** Where a session page starts: after the session with this key (newest first). */
interface SessionKey {
  /** `updated_at` (or `created_at` when never updated) in epoch microseconds, as text. */
  readonly updatedUs: string;
  readonly id: string;
}

/** Filters and position of {@link listSessionPage}. */
export interface SessionPageQuery {
  readonly directory?: string | undefined;
  /** A parent id; `null`: top-level sessions only; absent: any. */
  readonly parentId?: string | null | undefined;
  readonly taskType?: string | undefined;
  readonly archived: boolean;
  /** Rows to read (the caller asks one more than it shows, to know whether more follow). */
  readonly limit: number;
  readonly after?: SessionKey | undefined;
}

/** A listed session: its row, its page key and what its projection says. */
export interface SessionPageRow {
  readonly session: SessionRow;
  readonly key: SessionKey;
  /** The projection's `status`, unparsed; null without a projection. */
  readonly status: unknown;
  /** The projection's `updatedAt` (epoch ms), unparsed; null without a projection. */
  readonly activity: unknown;
  /** The projection's last applied sequence number; null without a projection. */
  readonly projectionSequence: number | null;
}

const updatedAt = sql<Date>`coalesce(s.updated_at, s.created_at)`;

/** One page of ensured sessions, most recently updated first (R16.4); stubs are never listed. */
export async function listSessionPage(
  db: Kysely<Database>,
  query: SessionPageQuery,
): Promise<SessionPageRow[]> {
  return inTransaction(db, 'listSessionPage', async (trx) => {
    let q = trx
      .selectFrom('sessions as s')
      .leftJoin('session_projections as p', 'p.session_id', 's.id')
      .selectAll('s')
      .select([
        sql<string>`(extract(epoch from ${updatedAt}) * 1000000)::bigint::text`.as('updated_us'),
        sql<unknown>`p.projection -> 'status'`.as('projection_status'),
        sql<unknown>`p.projection -> 'updatedAt'`.as('projection_activity'),
        'p.last_sequence as projection_sequence',
      ])
      .where('s.created_at', 'is not', null)
      .where('s.archived', '=', query.archived);
    if (query.directory !== undefined) q = q.where('s.cwd', '=', query.directory);
    if (query.parentId === null) q = q.where('s.parent_id', 'is', null);
    else if (query.parentId !== undefined) q = q.where('s.parent_id', '=', query.parentId);
    if (query.taskType !== undefined) q = q.where('s.task_type', '=', query.taskType);
    const after = query.after;
    if (after !== undefined) {
      q = q.where(
        sql<boolean>`(${updatedAt}, s.id) < ('epoch'::timestamptz + ${after.updatedUs}::bigint * interval '1 microsecond', ${after.id})`,
      );
    }
    const rows = await q
      .orderBy(updatedAt, 'desc')
      .orderBy('s.id', 'desc')
      .limit(query.limit)
      .execute();
    return rows.map((r) => {
      const { updated_us, projection_status, projection_activity, projection_sequence, ...s } = r;
      return {
        session: s as SessionRow,
        key: { updatedUs: updated_us, id: s.id },
        status: projection_status ?? null,
        activity: projection_activity ?? null,
        projectionSequence: projection_sequence ?? null,
      };
    });
  });
}

/** Sets a session's `archived` flag; false when there is no such (ensured) session. */
export async function setSessionArchived(
  db: Kysely<Database>,
  sessionId: string,
  archived: boolean,
): Promise<boolean> {
  return inTransaction(db, 'setSessionArchived', async (trx) => {
    const result = await trx
      .updateTable('sessions')
      .set({ archived, updated_at: new Date() })
      .where('id', '=', sessionId)
      .where('created_at', 'is not', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  });
}

/** What {@link deleteSessionRows} removed; `session` false when there was no row at all. */
export interface DeletedSession {
  readonly session: boolean;
  readonly messages: number;
}

/**
 * Deletes every row of a session in one transaction (R3.1, R16.4): the session (stub
 * included), its messages, parts, entries, ledger rows and projection.
 */
export async function deleteSessionRows(
  db: Kysely<Database>,
  sessionId: string,
): Promise<DeletedSession> {
  return inTransaction(db, 'deleteSessionRows', async (trx) => {
    // The session row first: it serialises with the writers that lock it.
    const session = await trx.deleteFrom('sessions').where('id', '=', sessionId).executeTakeFirst();
    const messages = await trx
      .deleteFrom('messages')
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    await trx.deleteFrom('parts').where('session_id', '=', sessionId).execute();
    await trx.deleteFrom('session_entries').where('session_id', '=', sessionId).execute();
    await trx.deleteFrom('session_inputs').where('session_id', '=', sessionId).execute();
    await trx.deleteFrom('session_projections').where('session_id', '=', sessionId).execute();
    return {
      session: session.numDeletedRows > 0n,
      messages: Number(messages.numDeletedRows),
    };
  });
}

/** How far the store's writers have applied a session's events. */
export interface SessionMarks {
  /** `sessions.last_sequence`: the worker's mark; null without a row. */
  readonly stored: number | null;
  /** `session_projections.last_sequence`: the projection's; null without a projection. */
  readonly projected: number | null;
}

/** Reads a session's two sequence marks (what delete checks before it removes rows). */
export async function readSessionMarks(
  db: Kysely<Database>,
  sessionId: string,
): Promise<SessionMarks> {
  return withStoreError('readSessionMarks', async () => {
    const row = await db
      .selectFrom('sessions as s')
      .fullJoin('session_projections as p', 'p.session_id', 's.id')
      .select(['s.last_sequence as stored', 'p.last_sequence as projected'])
      .where((eb) => eb.or([eb('s.id', '=', sessionId), eb('p.session_id', '=', sessionId)]))
      .executeTakeFirst();
    return { stored: row?.stored ?? null, projected: row?.projected ?? null };
  });
}
