import type { Database } from '@agentwire/store';
import { type Kysely, sql } from 'kysely';

/**
 * Takes a transaction-scoped advisory lock per key, all in one statement and in one global
 * order (by lock key), before a batch writes anything (docs/decisions/0052, 0035). The keys
 * name the rows that an events batch and a commands batch can both write: ledger rows
 * ({@link inputLockKey}; admissions, delivery changes and closes against promotions).
 * Every other shared row (a session's `last_sequence` against `ensure_session`) is written
 * last, in one sorted order, by both. So two batches wait for each other only when they
 * touch the same ledger row, and never deadlock: a transaction waiting for a lock holds no
 * row lock yet. A user message applied alone takes no advisory lock: its one statement
 * locks the ledger row before its message, in the same order (docs/decisions/0247).
 */
export async function lockKeys(trx: Kysely<Database>, keys: Iterable<string>): Promise<void> {
  const ids = [...new Set(keys)];
  if (ids.length === 0) return;
  await sql`select pg_advisory_xact_lock(k) from (
      select distinct hashtextextended(${AW_LOCK_NAMESPACE} || s, 0) as k
      from unnest(${ids}::text[]) as s order by k
    ) keys`.execute(trx);
}

/** The lock key of one ledger row (R14; a row is a session's input id, docs/decisions/0111). */
export function inputLockKey(sessionId: string, inputId: string): string {
  return `input:${sessionId}:${inputId}`;
}

/** Prefix mixed into each lock key, so our keys do not collide with others'. */
const AW_LOCK_NAMESPACE = 'agentwire:';
