import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/** What {@link copyTranscript} copies: a chain of one session's messages into another. */
export interface CopyTranscriptInput {
  readonly fromSessionId: string;
  readonly toSessionId: string;
  /** The chain, root first: the copies link in this order (`treeParentId`). */
  readonly messageIds: readonly string[];
  /** Appended to every copied message and part id (ids are unique across sessions). */
  readonly idSuffix: string;
}

/** What {@link copyTranscript} did. */
export type CopyTranscriptResult =
  | { readonly copied: true; readonly messages: number; readonly parts: number }
  /** A message id is not one of `fromSessionId`'s: nothing was copied. */
  | { readonly copied: false; readonly missing: readonly string[] };

/**
 * Copies a chain of messages with their parts into another session (a fork, docs/decisions
 * 0240), in the caller's transaction: each copy gets the id plus `idSuffix`, the new session,
 * the previous copy as `treeParentId` (the first: none) and, for an assistant step, its
 * answered prompt's copy as `parentId`. Repeating it changes nothing (conflicts are
 * skipped), so a redelivered command is a duplicate.
 */
export async function copyTranscript(
  db: Kysely<Database>,
  input: CopyTranscriptInput,
): Promise<CopyTranscriptResult> {
  const { fromSessionId: from, toSessionId: to, idSuffix: sfx } = input;
  const ids = [...input.messageIds];
  const found = await db
    .selectFrom('messages')
    .select('id')
    .where('session_id', '=', from)
    .where('id', 'in', ids)
    .execute();
  if (found.length !== new Set(ids).size) {
    const have = new Set(found.map((r) => r.id));
    return { copied: false, missing: ids.filter((id) => !have.has(id)) };
  }
  const messages = await sql`
    with picked as (
      select m.*, o.n from unnest(${ids}::text[]) with ordinality as o(id, n)
      join messages m on m.id = o.id and m.session_id = ${from}
    ), linked as (
      select p.*, lag(p.id) over (order by p.n) as prev from picked p
    )
    insert into messages (id, session_id, role, data, version, created_at)
    select id || ${sfx}, ${to}, role,
      data || jsonb_build_object(
        'id', id || ${sfx},
        'sessionId', ${to}::text,
        'treeParentId', case when prev is null then null else prev || ${sfx} end
      ) || case when (data ->> 'parentId') = any(${ids}::text[])
        then jsonb_build_object('parentId', (data ->> 'parentId') || ${sfx})
        else '{}'::jsonb end,
      version, created_at
    from linked
    on conflict (id) do nothing`.execute(db);
  const parts = await sql`
    insert into parts (id, message_id, session_id, type, status, status_rank, data, version)
    select p.id || ${sfx}, p.message_id || ${sfx}, ${to}, p.type, p.status, p.status_rank,
      p.data || jsonb_build_object(
        'id', p.id || ${sfx}, 'messageId', p.message_id || ${sfx}, 'sessionId', ${to}::text
      ),
      p.version
    from parts p where p.session_id = ${from} and p.message_id = any(${ids}::text[])
    on conflict (id) do nothing`.execute(db);
  return {
    copied: true,
    messages: Number(messages.numAffectedRows ?? 0n),
    parts: Number(parts.numAffectedRows ?? 0n),
  };
}
