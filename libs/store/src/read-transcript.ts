import type { Kysely } from 'kysely';
import { loadTranscript } from './messages-repository.ts';
import type { StoredMessage } from './read-history.ts';
import type { Database } from './schema.ts';
import { inReadSnapshot } from './transaction.ts';

/** What {@link readTranscript} found. */
export type StoredTranscript =
  | { readonly found: false }
  | {
      readonly found: true;
      readonly title: string | null;
      /** Every message of every branch, in the transcript's order, with its parts. */
      readonly messages: StoredMessage[];
    };

/**
 * A whole session for an export (docs/decisions/0241): its title and every message with its
 * parts, in (`created_at`, `id`) order, read in one repeatable-read snapshot.
 */
export function readTranscript(db: Kysely<Database>, sessionId: string): Promise<StoredTranscript> {
  return inReadSnapshot(db, 'readTranscript', async (trx) => {
    const session = await trx
      .selectFrom('sessions')
      .select('title')
      .where('id', '=', sessionId)
      .where('created_at', 'is not', null)
      .executeTakeFirst();
    if (session === undefined) return { found: false } as const;
    return { found: true, title: session.title, messages: await loadTranscript(trx, sessionId) };
  });
}
