import { createDatabase, migrate } from '@agentwire/store';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countUserTurns, loadTranscriptRows } from './load-transcript-rows.ts';

let env: TestEnvironment;
let db: ReturnType<typeof createDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createDatabase(env.databaseUrl, { poolSize: 2 });
  await migrate(db);
}, 60_000);

afterAll(async () => {
  await db?.destroy();
  await env?.dispose();
});

const T0 = 1_700_000_000_000;

/** One message with one text part, at `T0 + at` ms. */
async function write(
  sid: string,
  id: string,
  role: 'user' | 'assistant',
  at: number,
  extra: Record<string, unknown> = {},
): Promise<void> {
  // Message ids are unique across sessions: each session's are its own.
  const data = { id, sessionId: sid, role, time: { created: T0 + at }, ...extra };
  await db
    .insertInto('messages')
    .values({
      id: `${sid}.${id}`,
      session_id: sid,
      role,
      data: JSON.stringify(data),
      version: 1,
      created_at: new Date(T0 + at),
    })
    .execute();
  const messageId = `${sid}.${id}`;
  const part = { id: `${messageId}.t`, sessionId: sid, messageId, type: 'text', text: id };
  await db
    .insertInto('parts')
    .values({
      id: part.id,
      message_id: messageId,
      session_id: sid,
      type: 'text',
      status: null,
      status_rank: 0,
      data: JSON.stringify(part),
      version: 1,
    })
    .execute();
}

const summary = { synthetic: true, semantics: { kind: 'compact_summary' } };

describe('the cold open reads only what the history needs (issue 16, 0229)', () => {
  it('without a compaction: every row, in order', async () => {
    await write('plain', 'u1', 'user', 1);
    await write('plain', 'a1', 'assistant', 2);
    const { rows } = await loadTranscriptRows(db, 'plain');
    expect(rows.map((r) => r.parts[0]?.text)).toEqual(['u1', 'a1']);
    expect(await countUserTurns(db, 'plain')).toBe(1);
  });

  it('after compactions: from the prompt the last one kept, and every turn still counted', async () => {
    const sid = 'compacted';
    await write(sid, 'u1', 'user', 1);
    await write(sid, 'a1', 'assistant', 2);
    await write(sid, 'u2', 'user', 3);
    await write(sid, 'a2', 'assistant', 4);
    await write(sid, 's1', 'user', 5, summary);
    await write(sid, 'u3', 'user', 6);
    await write(sid, 'a3', 'assistant', 7);
    await write(sid, 'n3', 'user', 8, { synthetic: true, semantics: { kind: 'rewind_notice' } });
    await write(sid, 'a3b', 'assistant', 9);
    await write(sid, 's2', 'user', 10, summary);
    await write(sid, 'u4', 'user', 11);
    const { rows } = await loadTranscriptRows(db, sid);
    expect(rows.map((r) => [r.parts[0]?.text, r.kind])).toEqual([
      ['u3', null],
      ['a3', null],
      ['n3', 'rewind_notice'],
      ['a3b', null],
      ['s2', 'compact_summary'],
      ['u4', null],
    ]);
    expect(await countUserTurns(db, sid)).toBe(4);
  });

  it('a summary with no prompt before it: from the summary', async () => {
    await write('bare', 's1', 'user', 1, summary);
    await write('bare', 'u1', 'user', 2);
    const { rows } = await loadTranscriptRows(db, 'bare');
    expect(rows.map((r) => r.parts[0]?.text)).toEqual(['s1', 'u1']);
    expect(await countUserTurns(db, 'bare')).toBe(1);
  });
});

describe('the cold open follows the session tree (docs/decisions/0239)', () => {
  const texts = (rows: readonly { parts: readonly { text: string | null }[] }[]) =>
    rows.map((r) => r.parts[0]?.text);
  const parent = (sid: string, id: string | null) => ({
    treeParentId: id === null ? null : `${sid}.${id}`,
  });

  it('reads the active chain, or the chain ending at a given leaf', async () => {
    const sid = 'branched';
    await write(sid, 'u1', 'user', 1, parent(sid, null));
    await write(sid, 'a1', 'assistant', 2, parent(sid, 'u1'));
    await write(sid, 'u2', 'user', 3, parent(sid, 'a1'));
    await write(sid, 'a2', 'assistant', 4, parent(sid, 'u2'));
    await write(sid, 'n', 'user', 5, { ...parent(sid, 'a1'), synthetic: true });
    await write(sid, 'u3', 'user', 6, parent(sid, 'n'));
    const loaded = await loadTranscriptRows(db, sid);
    expect(texts(loaded.rows)).toEqual(['u1', 'a1', 'n', 'u3']);
    expect(loaded.leaf).toEqual({ id: `${sid}.u3`, parentId: `${sid}.n` });
    const abandoned = await loadTranscriptRows(db, sid, `${sid}.a2`);
    expect(texts(abandoned.rows)).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('ignores a compaction that lies on an abandoned branch', async () => {
    const sid = 'compacted-away';
    await write(sid, 'u1', 'user', 1, parent(sid, null));
    await write(sid, 'a1', 'assistant', 2, parent(sid, 'u1'));
    await write(sid, 'u2', 'user', 3, parent(sid, 'a1'));
    await write(sid, 's', 'user', 4, { ...parent(sid, 'u2'), ...summary });
    await write(sid, 'u3', 'user', 5, parent(sid, 's'));
    // From the prompt the summary kept (hydration puts the summary first, 0229).
    expect(texts((await loadTranscriptRows(db, sid)).rows)).toEqual(['u2', 's', 'u3']);
    // A rewind to before u2 leaves the summary behind: the whole chain is read again.
    await write(sid, 'n', 'user', 6, { ...parent(sid, 'a1'), synthetic: true });
    expect(texts((await loadTranscriptRows(db, sid)).rows)).toEqual(['u1', 'a1', 'n']);
  });

  it('reads rows written before the tree, and a new row that names one of them', async () => {
    const sid = 'mixed';
    await write(sid, 'u1', 'user', 1);
    await write(sid, 'a1', 'assistant', 2);
    await write(sid, 'u2', 'user', 3);
    expect(texts((await loadTranscriptRows(db, sid)).rows)).toEqual(['u1', 'a1', 'u2']);
    await write(sid, 'n', 'user', 4, { ...parent(sid, 'a1'), synthetic: true });
    expect(texts((await loadTranscriptRows(db, sid)).rows)).toEqual(['u1', 'a1', 'n']);
  });
});
