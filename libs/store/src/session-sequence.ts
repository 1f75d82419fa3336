import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Raises `sessions.last_sequence` to `sequence` if it is higher (DESIGN invariant: a
 * durable high-water mark of the session's event numbers, so a number is never reused
 * after the stream dropped old messages). Creates a stub row (`created_at` null) when the
 * session has none yet; `ensureSession` fills it in later. Never lowers the mark.
 *
 * Call it last in a transaction: the session row is the one row every event of a
 * session touches, so locking it last keeps lock order consistent.
 */
export async function advanceLastSequence(
  db: Kysely<Database>,
  sessionId: string,
  sequence: number,
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ id: sessionId, last_sequence: sequence })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ last_sequence: (eb) => eb.ref('excluded.last_sequence') })
        .where('sessions.last_sequence', '<', (eb) => eb.ref('excluded.last_sequence')),
    )
    .execute();
}

/** The session's durable high-water mark, 0 when it has no row. */
export async function getLastSequence(db: Kysely<Database>, sessionId: string): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select('last_sequence')
    .where('id', '=', sessionId)
    .executeTakeFirst();
  return row?.last_sequence ?? 0;
}
