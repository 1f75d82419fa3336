import { sql } from 'kysely';
import type { StoreDb } from '../nats/session-loader.ts';

/**
 * Refreshes the planner statistics of `messages` and `parts` after a bulk seed, as
 * autovacuum would in a live database, so a benchmark does not time a plan made for
 * empty tables.
 */
export async function analyzeTranscriptTables(db: StoreDb): Promise<void> {
  await sql`analyze messages`.execute(db);
  await sql`analyze parts`.execute(db);
}
