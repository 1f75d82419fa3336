import type { TranscriptPart, TranscriptRow } from '@agentwire/engine';
import { sql } from 'kysely';
import { z } from 'zod';
import type { StoreDb } from './session-loader.ts';

const CompactPart = z.tuple([
  z.string(),
  z.enum(['text', 'tool', 'file']),
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
  z.unknown(),
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
]);
const CompactMessage = z.tuple([
  z.string(),
  z.enum(['user', 'assistant']),
  z.string().nullable(),
  z.boolean(),
  z.string().nullable(),
]);

/**
 * Reads what the model's history needs from a session's messages and parts (cold
 * recovery, R10.4): two queries, run in parallel, in which Postgres projects the few JSON
 * fields used and aggregates each result into one JSON document, parsed once and checked
 * against a compact schema at this boundary. Reading full rows and parsing every part with
 * its contract schema cost about 1 s for 10,000 messages and 50,000 parts. This is the
 * runtime's only read of Postgres besides the session row.
 */
export async function loadTranscriptRows(db: StoreDb, sessionId: string): Promise<TranscriptRow[]> {
  const [messages, parts] = await Promise.all([
    sql<{ doc: string | null }>`
      select json_agg(json_build_array(
        m.id, m.role, m.data -> 'semantics' ->> 'providerVisibility',
        coalesce((m.data ->> 'synthetic')::boolean, false), m.data -> 'semantics' ->> 'kind'
      ) order by m.created_at, m.id)::text as doc
      from messages m where m.session_id = ${sessionId}`.execute(db),
    sql<{ doc: string | null }>`
      select json_agg(json_build_array(
        p.message_id, p.type, p.data ->> 'text', p.data ->> 'toolCallId', p.data ->> 'toolName',
        p.data -> 'state' ->> 'status', p.data -> 'state' -> 'input',
        p.data -> 'state' ->> 'output', p.data -> 'state' ->> 'error',
        p.data ->> 'url', p.data ->> 'filename'
      ) order by p.message_id, p.id)::text as doc
      from parts p where p.session_id = ${sessionId}
        and p.type in ('text', 'tool', 'file')`.execute(db),
  ]);
  const byMessage = new Map<string, TranscriptPart[]>();
  for (const [
    messageId,
    type,
    text,
    toolCallId,
    toolName,
    status,
    input,
    output,
    error,
    url,
    filename,
  ] of z.array(CompactPart).parse(JSON.parse(parts.rows[0]?.doc ?? '[]'))) {
    let list = byMessage.get(messageId);
    if (list === undefined) {
      list = [];
      byMessage.set(messageId, list);
    }
    list.push({
      type,
      text,
      toolCallId,
      toolName,
      status,
      input: input ?? null,
      output,
      error,
      url,
      filename,
    });
  }
  return z
    .array(CompactMessage)
    .parse(JSON.parse(messages.rows[0]?.doc ?? '[]'))
    .map(([id, role, providerVisibility, synthetic, kind]) => ({
      role,
      providerVisibility,
      synthetic,
      kind,
      parts: byMessage.get(id) ?? [],
    }));
}
