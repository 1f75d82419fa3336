import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { json, withStoreError } from './transaction.ts';

/** A stored projection (R10) and the last sequence number applied to it. */
export interface StoredProjection {
  readonly projection: unknown;
  readonly lastSequence: number;
}

/** Reads a session's stored projection, if any. */
export async function getProjection(
  db: Kysely<Database>,
  sessionId: string,
): Promise<StoredProjection | undefined> {
  const row = await withStoreError('getProjection', () =>
    db
      .selectFrom('session_projections')
      .select(['projection', 'last_sequence'])
      .where('session_id', '=', sessionId)
      .executeTakeFirst(),
  );
  return row === undefined
    ? undefined
    : { projection: row.projection, lastSequence: row.last_sequence };
}

/** Input of {@link saveProjection}. */
export interface SaveProjectionInput {
  readonly sessionId: string;
  readonly projection: unknown;
  readonly lastSequence: number;
  /** The `lastSequence` read before reducing; `null` when there was no row. */
  readonly expectedLastSequence: number | null;
}

/** Outcome of {@link saveProjection}. */
export type SaveProjectionOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'conflict'; readonly actualLastSequence: number | null };

/**
 * Compare-and-set on `last_sequence` (DESIGN flow 3): writes only if the stored number is
 * still `expectedLastSequence` (or no row exists when it is `null`), so competing
 * projection instances never lose an update; the loser re-reads and re-applies.
 */
export async function saveProjection(
  db: Kysely<Database>,
  input: SaveProjectionInput,
): Promise<SaveProjectionOutcome> {
  return withStoreError('saveProjection', async () => {
    const written =
      input.expectedLastSequence === null
        ? await db
            .insertInto('session_projections')
            .values({
              session_id: input.sessionId,
              projection: json(input.projection),
              last_sequence: input.lastSequence,
            })
            .onConflict((oc) => oc.column('session_id').doNothing())
            .returning('session_id')
            .executeTakeFirst()
        : await db
            .updateTable('session_projections')
            .set({
              projection: json(input.projection),
              last_sequence: input.lastSequence,
              updated_at: new Date(),
            })
            .where('session_id', '=', input.sessionId)
            .where('last_sequence', '=', input.expectedLastSequence)
            .returning('session_id')
            .executeTakeFirst();
    if (written !== undefined) return { ok: true };
    const current = await getProjection(db, input.sessionId);
    return { ok: false, reason: 'conflict', actualLastSequence: current?.lastSequence ?? null };
  });
}
