import type { AssistantMessage, Part, UserMessage } from '@agentwire/contracts';
import { type Database, ensureSession } from '@agentwire/store';
import type { Insertable, Kysely } from 'kysely';

/** Options of {@link seedLongSession}. */
export interface SeedOptions {
  /** Session creation time, epoch ms (default 1.7e12). */
  readonly createdAt?: number;
  /** Working directory of the session (default `/repo`). */
  readonly cwd?: string;
  /** Sets `sessions.last_sequence` (default: two numbers per message). */
  readonly lastSequence?: number;
}

/**
 * The id of message `i` of a seeded session: zero-padded, so id order is index order.
 *
 * @internal Exported for its tests.
 */
export function seededMessageId(sessionId: string, i: number): string {
  return `${sessionId}-m${String(i).padStart(6, '0')}`;
}

/**
 * Writes a session of `count` messages straight into the store (tests and benches: far
 * faster than running turns): even messages from the user with one text part, odd ones
 * from the assistant with a text and a reasoning part. Every three messages share one
 * creation millisecond, so pages must break ties by id.
 */
export async function seedLongSession(
  db: Kysely<Database>,
  sessionId: string,
  count: number,
  options: SeedOptions = {},
): Promise<void> {
  const t0 = options.createdAt ?? 1_700_000_000_000;
  const cwd = options.cwd ?? '/repo';
  await ensureSession(db, { id: sessionId, cwd, root: cwd, createdAt: t0 });
  const lastSequence = options.lastSequence ?? count * 2;
  await db
    .updateTable('sessions')
    .set({ last_sequence: lastSequence })
    .where('id', '=', sessionId)
    .execute();
  for (let from = 0; from < count; from += 1000) {
    const messages: Insertable<Database['messages']>[] = [];
    const parts: Insertable<Database['parts']>[] = [];
    for (let i = from; i < Math.min(count, from + 1000); i += 1) {
      const id = seededMessageId(sessionId, i);
      const created = t0 + Math.floor(i / 3);
      const message: UserMessage | AssistantMessage =
        i % 2 === 0
          ? { id, sessionId, role: 'user', time: { created }, agent: 'build' }
          : {
              id,
              sessionId,
              role: 'assistant',
              time: { created, completed: created },
              parentId: seededMessageId(sessionId, i - 1),
              providerId: 'scripted',
              modelId: 'scripted',
              mode: 'build',
              agent: 'build',
              path: { cwd, root: cwd },
              cost: 0,
              tokens: { input: 10, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
            };
      messages.push({
        id,
        session_id: sessionId,
        role: message.role,
        data: JSON.stringify(message),
        version: 1,
        created_at: new Date(created),
      });
      const own: Part[] = [
        { id: `${id}-p1`, sessionId, messageId: id, type: 'text', text: `message ${i}` },
      ];
      if (i % 2 === 1) {
        own.push({
          id: `${id}-p2`,
          sessionId,
          messageId: id,
          type: 'reasoning',
          text: `why ${i}`,
          time: { start: created, end: created },
        });
      }
      for (const p of own) {
        parts.push({
          id: p.id,
          message_id: id,
          session_id: sessionId,
          type: p.type,
          status: null,
          status_rank: 0,
          data: JSON.stringify(p),
          version: 1,
        });
      }
    }
    await db.insertInto('messages').values(messages).execute();
    await db.insertInto('parts').values(parts).execute();
  }
}
