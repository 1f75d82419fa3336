import type { Database } from '@agentwire/store';
import { type Kysely, sql } from 'kysely';

/**
 * Takes a transaction-scoped advisory lock per session, all in one statement and in one
 * global order (by lock key), before a batch writes anything. Every worker transaction,
 * events or commands, in any process, locks its sessions this way, so two batches that
 * share sessions wait for each other instead of deadlocking on the rows they both touch
 * (ledger rows, the session row). See docs/decisions/0052.
 */
export async function lockSessions(
  trx: Kysely<Database>,
  sessionIds: Iterable<string>,
): Promise<void> {
  const ids = [...new Set(sessionIds)];
  if (ids.length === 0) return;
  await sql`select pg_advisory_xact_lock(k) from (
      select distinct hashtextextended(${AW_LOCK_NAMESPACE} || s, 0) as k
      from unnest(${ids}::text[]) as s order by k
    ) keys`.execute(trx);
}

/** Prefix mixed into each session's lock key, so our keys do not collide with others'. */
const AW_LOCK_NAMESPACE = 'agentwire.session:';
