import type { Kysely, Transaction } from 'kysely';
import { toStoreError } from './errors.ts';
import type { Database } from './schema.ts';

/**
 * Runs `fn` in a transaction: in `db` itself when `db` already is one (so repository
 * functions compose inside a caller's transaction, e.g. {@link runOnce}), otherwise in a
 * new one. Errors leave as {@link StoreError}s naming `operation`.
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  operation: string,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    if (db.isTransaction) return await fn(db as Transaction<Database>);
    return await db.transaction().execute(fn);
  } catch (err) {
    throw toStoreError(operation, err);
  }
}

/**
 * Runs the reads of `fn` in one read-only repeatable-read transaction, so they all see the
 * same moment of the store. Errors leave as {@link StoreError}s naming `operation`.
 */
export function inReadSnapshot<T>(
  db: Kysely<Database>,
  operation: string,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return withStoreError(operation, () =>
    db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(fn),
  );
}

/** Runs one statement (or a read) and wraps its failure as a {@link StoreError}. */
export async function withStoreError<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toStoreError(operation, err);
  }
}

/** JSON text for a JSONB column (`undefined` becomes `null`). */
export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** An event or command time as a `Date`: epoch milliseconds, ISO text or a `Date`. */
export function toDate(value: number | string | Date): Date {
  return value instanceof Date ? value : new Date(value);
}
