import { type Database, toStoreError } from '@agentwire/store';
import { type Kysely, sql } from 'kysely';
import type { CasWrite, ProjectionStore, StoredProjection } from './projection-store.ts';

/**
 * The Postgres {@link ProjectionStore} over `session_projections` (DESIGN.md "Postgres").
 * A batch of compare-and-set writes is one statement: an `UPDATE ... WHERE last_sequence =
 * expected` for existing rows and an `INSERT ... ON CONFLICT DO NOTHING` for new ones, so a
 * competing instance's newer write is never overwritten (flow 3).
 */
export class PgProjectionStore implements ProjectionStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async get(sessionId: string): Promise<StoredProjection | undefined> {
    return (await this.getMany([sessionId])).get(sessionId);
  }

  async getMany(sessionIds: readonly string[]): Promise<Map<string, StoredProjection>> {
    const out = new Map<string, StoredProjection>();
    if (sessionIds.length === 0) return out;
    try {
      const rows = await this.db
        .selectFrom('session_projections')
        .select(['session_id', 'projection', 'last_sequence'])
        .where('session_id', 'in', sessionIds)
        .execute();
      for (const row of rows) {
        out.set(row.session_id, { projection: row.projection, lastSequence: row.last_sequence });
      }
      return out;
    } catch (error) {
      throw toStoreError('read session_projections', error);
    }
  }

  async compareAndSet(writes: readonly CasWrite[]): Promise<Set<string>> {
    if (writes.length === 0) return new Set();
    const rows = JSON.stringify(
      writes.map((w) => ({
        session_id: w.sessionId,
        projection: w.projection,
        last_sequence: w.lastSequence,
        expected: w.expected,
      })),
    );
    try {
      const result = await sql<{ session_id: string }>`
        with t as (
          select * from jsonb_to_recordset(${rows}::jsonb)
            as t(session_id text, projection jsonb, last_sequence bigint, expected bigint)
        ),
        u as (
          update session_projections sp
             set projection = t.projection, last_sequence = t.last_sequence, updated_at = now()
            from t
           where t.expected > 0 and sp.session_id = t.session_id and sp.last_sequence = t.expected
          returning sp.session_id
        ),
        i as (
          insert into session_projections (session_id, projection, last_sequence)
          select session_id, projection, last_sequence from t where t.expected = 0
          on conflict (session_id) do nothing
          returning session_id
        )
        select session_id from u union all select session_id from i`.execute(this.db);
      return new Set(result.rows.map((r) => r.session_id));
    } catch (error) {
      throw toStoreError('compare-and-set session_projections', error);
    }
  }
}
