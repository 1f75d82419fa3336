import type { Kysely } from 'kysely';
import type { Database, SessionEntryRow } from './schema.ts';
import { json, toDate, withStoreError } from './transaction.ts';

/** Input of {@link saveEntry} and {@link upsertKeyedEntry}: one session entry (R6, R16.4). */
export interface EntryInput {
  readonly sessionId: string;
  /** Entry type, e.g. `runtime/workspace_checkpoint` (R16.4). */
  readonly type: string;
  /** The producing event's id. */
  readonly eventId: string;
  /** The producing event's sequence number. */
  readonly sequence: number;
  readonly data: unknown;
  readonly createdAt: number | string | Date;
}

/** The id of a keyed entry: one row per (session, type, key). */
export function keyedEntryId(sessionId: string, type: string, key: string): string {
  return `${type}:${sessionId}:${key}`;
}

/**
 * Saves an entry once per producing event (R6; `id` = event id): a repeated event is a
 * no-op. Returns whether a row was written.
 */
export async function saveEntry(
  db: Kysely<Database>,
  entry: EntryInput,
): Promise<{ written: boolean }> {
  const row = await withStoreError('saveEntry', () =>
    db
      .insertInto('session_entries')
      .values({
        id: entry.eventId,
        session_id: entry.sessionId,
        type: entry.type,
        key: null,
        event_id: entry.eventId,
        sequence: entry.sequence,
        data: json(entry.data),
        created_at: toDate(entry.createdAt),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst(),
  );
  return { written: row !== undefined };
}

/**
 * Upserts the one entry of `(session, type, key)` (R6: the auto-resolution entry is
 * overwritten per interaction id). The write applies only when its event's sequence is
 * newer than the stored one, so a late or repeated event never overwrites a newer state.
 */
export async function upsertKeyedEntry(
  db: Kysely<Database>,
  entry: EntryInput & { readonly key: string },
): Promise<{ written: boolean }> {
  const row = await withStoreError('upsertKeyedEntry', () =>
    db
      .insertInto('session_entries')
      .values({
        id: keyedEntryId(entry.sessionId, entry.type, entry.key),
        session_id: entry.sessionId,
        type: entry.type,
        key: entry.key,
        event_id: entry.eventId,
        sequence: entry.sequence,
        data: json(entry.data),
        created_at: toDate(entry.createdAt),
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({
            event_id: (eb) => eb.ref('excluded.event_id'),
            sequence: (eb) => eb.ref('excluded.sequence'),
            data: (eb) => eb.ref('excluded.data'),
            created_at: (eb) => eb.ref('excluded.created_at'),
          })
          .where('session_entries.sequence', '<', (eb) => eb.ref('excluded.sequence')),
      )
      .returning('id')
      .executeTakeFirst(),
  );
  return { written: row !== undefined };
}

/** Lists a session's entries in sequence order, optionally of one type (R16.4). */
export async function listEntries(
  db: Kysely<Database>,
  sessionId: string,
  type?: string,
): Promise<SessionEntryRow[]> {
  let q = db.selectFrom('session_entries').selectAll().where('session_id', '=', sessionId);
  if (type !== undefined) q = q.where('type', '=', type);
  const query = q.orderBy('sequence').orderBy('id');
  return withStoreError('listEntries', () => query.execute());
}
