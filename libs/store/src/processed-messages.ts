import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import { inTransaction, json } from './transaction.ts';

/** Identifies one applied message: `scope` (e.g. `event`, `command`) and its id. */
interface ProcessedKey {
  readonly scope: string;
  readonly id: string;
}

/** The result of {@link runOnce}: the outcome, and whether it was recorded earlier. */
interface RunOnceResult<T> {
  /** True when the message had already been applied; `outcome` is the stored one. */
  readonly duplicate: boolean;
  readonly outcome: T;
}

/**
 * Applies a message at most once (DESIGN invariant "every write is idempotent"): in one
 * transaction, records `key` in `processed_messages` and runs `fn`; the JSON outcome of
 * `fn` is stored with the key. A redelivered message (same key) does not run `fn` again
 * and gets the stored outcome back, so a worker that committed but crashed before acking
 * can still send the same confirmation. Two concurrent deliveries of one key serialise on
 * the key's row: the second waits for the first to commit, then sees a duplicate.
 *
 * `fn` must return JSON-serialisable data. The writes inside are idempotent by
 * construction as well; this record only saves work and remembers outcomes.
 */
export async function runOnce<T>(
  db: Kysely<Database>,
  key: ProcessedKey,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<RunOnceResult<T>> {
  return inTransaction(db, `runOnce(${key.scope}:${key.id})`, async (trx) => {
    const inserted = await trx
      .insertInto('processed_messages')
      .values({ scope: key.scope, id: key.id })
      .onConflict((oc) => oc.columns(['scope', 'id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted === undefined) {
      const row = await trx
        .selectFrom('processed_messages')
        .select('outcome')
        .where('scope', '=', key.scope)
        .where('id', '=', key.id)
        .executeTakeFirst();
      return { duplicate: true, outcome: row?.outcome as T };
    }
    const outcome = await fn(trx);
    await trx
      .updateTable('processed_messages')
      .set({ outcome: json(outcome) })
      .where('scope', '=', key.scope)
      .where('id', '=', key.id)
      .execute();
    return { duplicate: false, outcome };
  });
}
