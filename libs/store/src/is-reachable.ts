import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Whether Postgres answers `select 1` through `db`'s pool within `timeoutMs` (readiness,
 * issue 9): false while the server is down or hung, never a throw.
 */
export async function isReachable(db: Kysely<Database>, timeoutMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      sql`select 1`.execute(db).then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
