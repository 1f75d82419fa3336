import type { Names } from '@agentwire/contracts';
import { RuntimeError, type TranscriptReader, type TreeMessage } from '@agentwire/engine';
import { JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { sql } from 'kysely';
import { loadTranscriptRows } from './load-transcript-rows.ts';
import type { StoreDb } from './session-loader.ts';

/** JetStream's "stream not found" (no command was ever published under this prefix). */
const STREAM_NOT_FOUND = 10059;
const POLL_MS = 10;

/** What {@link transcriptReader} reads with. */
export interface TranscriptReaderDeps {
  readonly db: StoreDb;
  readonly jsm: JetStreamManager;
  readonly names: Names;
  /** How long a read waits for the worker to commit the session's writes (default 10 s). */
  readonly committedWithinMs?: number;
}

/**
 * The session tree's reads over Postgres (docs/decisions/0239). Before each read it waits
 * until the commands stream holds no persistence command of the session: the stream is a
 * work queue, so none left means the worker committed every write the session published
 * (the query service's "as of" rule, 0181).
 */
export function transcriptReader(deps: TranscriptReaderDeps): TranscriptReader {
  const { db, jsm, names } = deps;
  const within = deps.committedWithinMs ?? 10_000;
  const committed = async (sessionId: string): Promise<void> => {
    const subject = names.commandSubject(sessionId);
    const deadline = Date.now() + within;
    for (;;) {
      let pending: number;
      try {
        const info = await jsm.streams.info(names.commandsStream, { subjects_filter: subject });
        pending = info.state.subjects?.[subject] ?? 0;
      } catch (error) {
        if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return;
        throw error;
      }
      if (pending === 0) return;
      if (Date.now() >= deadline) {
        throw new RuntimeError(
          'write_not_confirmed',
          `the store has not committed ${pending} write(s) of session ${sessionId} yet; retry`,
          { pendingCommands: pending, retryable: true },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  return {
    async tree(sessionId) {
      await committed(sessionId);
      const { rows } = await sql<{
        id: string;
        role: 'user' | 'assistant';
        tree_parent_id: string | null;
        synthetic: boolean;
        kind: string | null;
        preview: string | null;
      }>`
        select m.id, m.role,
          case when m.data ? 'treeParentId' then coalesce(m.data ->> 'treeParentId', '') end
            as tree_parent_id,
          coalesce((m.data ->> 'synthetic')::boolean, false) as synthetic,
          m.data -> 'semantics' ->> 'kind' as kind,
          (select left(p.data ->> 'text', 120) from parts p
            where p.message_id = m.id and p.type = 'text' order by p.id limit 1) as preview
        from messages m where m.session_id = ${sessionId}
        order by m.created_at, m.id`.execute(db);
      return rows.map(
        (r): TreeMessage => ({
          id: r.id,
          treeParentId:
            r.tree_parent_id === null
              ? undefined
              : r.tree_parent_id === ''
                ? null
                : r.tree_parent_id,
          role: r.role,
          prompt: r.role === 'user' && !r.synthetic && r.kind !== 'slash_command',
          preview: r.preview ?? '',
        }),
      );
    },
    async chain(sessionId, leafId) {
      await committed(sessionId);
      return (await loadTranscriptRows(db, sessionId, leafId)).rows;
    },
  };
}
