import { randomBytes } from 'node:crypto';
import type { StartedRuntime } from '@agentwire/runtime';
import { analyzeTranscriptTables } from '@agentwire/runtime/testing';
import type { createDatabase } from '@agentwire/store';
import { sql } from 'kysely';
import { median } from '../stats.ts';

/** The cold-open session of the runtime group: 10,000 messages and 50,000 parts. */
export const COLD_MESSAGES = 10_000;
export const COLD_PARTS = 50_000;

/** A cold open's time and, measured beside it, a raw read of the same rows (issue 16). */
export interface ColdOpen {
  readonly ms: number;
  /** One query returning the session's messages and parts as JSON, and its parse. */
  readonly rawMs: number;
}

/** The raw read: every message and part of the session, in one query, parsed once. */
async function rawRead(db: ReturnType<typeof createDatabase>, sid: string): Promise<number> {
  const started = performance.now();
  const result = await sql<{ messages: string | null; parts: string | null }>`
    select
      (select json_agg(m.data order by m.created_at, m.id) from messages m
        where m.session_id = ${sid})::text as messages,
      (select json_agg(p.data order by p.message_id, p.id) from parts p
        where p.session_id = ${sid})::text as parts`.execute(db);
  const row = result.rows[0];
  const parsed = [JSON.parse(row?.messages ?? '[]'), JSON.parse(row?.parts ?? '[]')];
  if (!Array.isArray(parsed[1])) throw new Error('raw read returned no parts');
  return performance.now() - started;
}

/**
 * Seeds a session of `messageCount` messages and `partCount` parts (half of the messages
 * assistant ones with tool parts) and times `activate`, the cold open of a session nobody
 * holds, and a raw read of the same rows, alternately (median of 3 runs each). The session
 * is removed afterwards.
 */
export async function coldOpen(
  runtime: StartedRuntime,
  db: ReturnType<typeof createDatabase>,
  messageCount: number,
  partCount: number,
): Promise<ColdOpen> {
  const sid = await seedTranscript(db, messageCount, partCount);
  const timings: number[] = [];
  const raw: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    raw.push(await rawRead(db, sid));
    const started = performance.now();
    await runtime.host.activate(sid, 'op');
    timings.push(performance.now() - started);
    const rebuilt = runtime.host.resident(sid)?.history.length;
    if (rebuilt !== partCount) throw new Error(`cold open rebuilt ${rebuilt} history entries`);
    await runtime.host.deactivate(sid);
  }
  await removeTranscript(db, sid);
  return { ms: median(timings), rawMs: median(raw) };
}

/** Writes a session row, its messages and parts; returns its id. */
export async function seedTranscript(
  db: ReturnType<typeof createDatabase>,
  messageCount: number,
  partCount: number,
): Promise<string> {
  const sid = `bench-cold-${randomBytes(4).toString('hex')}`;
  const now = Date.now();
  await db
    .insertInto('sessions')
    .values({
      id: sid,
      title: 'bench',
      title_source: 'first_input',
      first_input: 'bench',
      cwd: '/w',
      root: '/w',
      created_at: new Date(now),
      updated_at: new Date(now),
      data: '{}',
    })
    .execute();
  const toolsPerAssistant = (partCount - messageCount) / (messageCount / 2);
  const messages: {
    id: string;
    session_id: string;
    role: string;
    data: string;
    version: number;
    created_at: Date;
  }[] = [];
  const parts: {
    id: string;
    message_id: string;
    session_id: string;
    type: string;
    status: string | null;
    status_rank: number;
    data: string;
    version: number;
  }[] = [];
  for (let m = 0; m < messageCount; m += 1) {
    const id = `${sid}_m${String(m).padStart(6, '0')}`;
    const created = now + m;
    const user = m % 2 === 0;
    const data = user
      ? { id, sessionId: sid, role: 'user', time: { created }, agent: 'build' }
      : {
          id,
          sessionId: sid,
          role: 'assistant',
          time: { created },
          parentId: `${sid}_m${String(m - 1).padStart(6, '0')}`,
          providerId: 'scripted',
          modelId: 'scripted-1',
          mode: 'build',
          agent: 'build',
          path: { cwd: '/w', root: '/w' },
          cost: 0,
          tokens: { input: 10, output: 10, reasoning: 0, cache: { read: 0, write: 0 } },
        };
    messages.push({
      id,
      session_id: sid,
      role: user ? 'user' : 'assistant',
      data: JSON.stringify(data),
      version: 1,
      created_at: new Date(created),
    });
    const text = {
      id: `${id}.t`,
      sessionId: sid,
      messageId: id,
      type: 'text',
      text: `message ${m} with some words of text`,
    };
    parts.push({
      id: text.id,
      message_id: id,
      session_id: sid,
      type: 'text',
      status: null,
      status_rank: 0,
      data: JSON.stringify(text),
      version: 1,
    });
    if (!user) {
      for (let t = 0; t < toolsPerAssistant; t += 1) {
        const tool = {
          id: `${id}.c${t}`,
          sessionId: sid,
          messageId: id,
          type: 'tool',
          toolCallId: `c${m}_${t}`,
          toolName: 'read_file',
          state: {
            status: 'completed',
            input: { path: 'README.md' },
            output: 'contents',
            metadata: {
              schemaVersion: 1,
              serialization: { truncated: false, rawBytes: 8, returnedBytes: 8 },
            },
            time: { start: created, end: created },
          },
        };
        parts.push({
          id: tool.id,
          message_id: id,
          session_id: sid,
          type: 'tool',
          status: 'completed',
          status_rank: 2,
          data: JSON.stringify(tool),
          version: 1,
        });
      }
    }
  }
  for (let i = 0; i < messages.length; i += 2_000)
    await db
      .insertInto('messages')
      .values(messages.slice(i, i + 2_000))
      .execute();
  for (let i = 0; i < parts.length; i += 2_000)
    await db
      .insertInto('parts')
      .values(parts.slice(i, i + 2_000))
      .execute();
  await analyzeTranscriptTables(db);
  return sid;
}

/** Removes a seeded session's rows. */
export async function removeTranscript(
  db: ReturnType<typeof createDatabase>,
  sid: string,
): Promise<void> {
  await db.deleteFrom('parts').where('session_id', '=', sid).execute();
  await db.deleteFrom('messages').where('session_id', '=', sid).execute();
  await db.deleteFrom('sessions').where('id', '=', sid).execute();
}
