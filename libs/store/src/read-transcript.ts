import type { Kysely } from 'kysely';
import type { StoredMessage } from './read-history.ts';
import type { Database, PartRow } from './schema.ts';
import { withStoreError } from './transaction.ts';

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
  return withStoreError('readTranscript', () =>
    db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const session = await trx
          .selectFrom('sessions')
          .select('title')
          .where('id', '=', sessionId)
          .where('created_at', 'is not', null)
          .executeTakeFirst();
        if (session === undefined) return { found: false } as const;
        const messages = await trx
          .selectFrom('messages')
          .selectAll()
          .where('session_id', '=', sessionId)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        const parts = await trx
          .selectFrom('parts')
          .selectAll()
          .where('session_id', '=', sessionId)
          .orderBy('message_id')
          .orderBy('id')
          .execute();
        const byMessage = new Map<string, PartRow[]>();
        for (const p of parts) {
          const list = byMessage.get(p.message_id);
          if (list === undefined) byMessage.set(p.message_id, [p]);
          else list.push(p);
        }
        return {
          found: true,
          title: session.title,
          messages: messages.map((message) => ({
            message,
            parts: byMessage.get(message.id) ?? [],
          })),
        } as const;
      }),
  );
}
