import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';
import { withStoreError } from './transaction.ts';

/** Each table's ordering key and the volatile columns left out of a dump. */
const DUMP_TABLES: Readonly<
  Record<keyof Database, { readonly orderBy: readonly string[]; readonly omit: readonly string[] }>
> = {
  sessions: { orderBy: ['id'], omit: [] },
  messages: { orderBy: ['id'], omit: [] },
  parts: { orderBy: ['id'], omit: [] },
  session_entries: { orderBy: ['id'], omit: [] },
  session_inputs: { orderBy: ['session_id', 'id'], omit: [] },
  session_projections: { orderBy: ['session_id'], omit: ['updated_at'] },
  processed_messages: { orderBy: ['scope', 'id'], omit: ['processed_at'] },
};

/**
 * A canonical dump: table name to its rows, each row a JSON object with sorted keys.
 *
 * @internal Exported for its tests.
 */
export type CanonicalDump = Record<keyof Database, Record<string, unknown>[]>;

function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/**
 * Reads every table of the store in a deterministic form, for equivalence tests (the
 * same messages delivered in order, shuffled or twice must give the same dump): rows
 * sorted by primary key, keys sorted, times as ISO text, and the columns that record
 * when a write happened (`processed_at`, projection `updated_at`) left out. Every other
 * stored time comes from the events and commands themselves.
 */
export async function canonicalDump(
  db: Kysely<Database>,
  options: { readonly tables?: readonly (keyof Database)[] } = {},
): Promise<Partial<CanonicalDump>> {
  return withStoreError('canonicalDump', async () => {
    const dump: Partial<CanonicalDump> = {};
    const tables = options.tables ?? (Object.keys(DUMP_TABLES) as (keyof Database)[]);
    for (const table of tables) {
      const { orderBy, omit } = DUMP_TABLES[table];
      const result = await sql<
        Record<string, unknown>
      >`select * from ${sql.table(table)} order by ${sql.join(
        orderBy.map((c) => sql.ref(c)),
      )}`.execute(db);
      dump[table] = result.rows.map((row) => {
        const kept = Object.fromEntries(Object.entries(row).filter(([k]) => !omit.includes(k)));
        return canonical(kept) as Record<string, unknown>;
      });
    }
    return dump;
  });
}
