import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionEvent } from '@agentwire/contracts';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Workspace checkpoints and rewind against real runtime processes (issue 12 items 1-2,
 * docs/decisions/0225): three turns write, edit, create and delete files; a rewind to the
 * checkpoint before turn 2 restores the tree byte for byte, also on another instance after
 * the first was SIGKILLed; a file the user changed since is not overwritten.
 */
let stack: RuntimeStack;
let client: WireDriver;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'undo-e2e' }, ['rtA', 'rtB']);
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** A hash of every file's path and bytes in the workspace: equal trees hash equal. */
async function treeHash(): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string) => {
    const entries = await readdir(path.join(stack.workspace, dir), { withFileTypes: true });
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) await walk(rel);
      else hash.update(`${rel}\0`).update(await readFile(path.join(stack.workspace, rel)));
    }
  };
  await walk('');
  return hash.digest('hex');
}

/** A new session in yolo mode (nothing asks), with a follower. */
async function session() {
  const opened = await client.open();
  if (!opened.ok) throw new Error(opened.error.message);
  const sid = String(opened.sessionId);
  const follow = client.follow(sid, 0);
  expect(await client.op(sid, 'set_mode', { mode: 'yolo' })).toMatchObject({ ok: true });
  return { sid, follow, owner: String(opened.owner) };
}

/** One branch as `/tree` lists it. */
interface Branch {
  readonly leafId: string;
  readonly active: boolean;
  readonly firstMessage?: { readonly preview: string };
}

const checkpointsOf = (events: readonly SessionEvent[], turnId: string) =>
  events.flatMap((e) =>
    e.type === 'checkpoint_created' && e.turnId === turnId ? [e.payload.checkpointId] : [],
  );

describe('undo: checkpoints and rewind (issue 12)', () => {
  it('rewinds files and conversation to before turn 2, on another instance after a SIGKILL, and goes back to the abandoned branch', async () => {
    const { sid, follow, owner } = await session();
    const turnIds: string[] = [];
    let afterTurn1 = '';
    for (const scenario of ['undo_create', 'undo_change', 'undo_more']) {
      const turn = await client.runTurn(sid, `[scenario:${scenario}] go`, follow);
      expect(turn, scenario).toMatchObject({ ok: true, status: 'complete' });
      turnIds.push(String(turn.ok ? turn.turnId : ''));
      if (scenario === 'undo_create') afterTurn1 = await treeHash();
    }
    const afterTurn3 = await treeHash();
    expect(await readFile(path.join(stack.workspace, 'out/c.txt'), 'utf8')).toBe('c');
    const [beforeTurn2] = checkpointsOf(follow.events, turnIds[1] ?? '');
    expect(checkpointsOf(follow.events, turnIds[1] ?? '')).toHaveLength(2);
    // The owner dies; another instance takes the session over and rewinds it.
    await stack.killRuntime(owner);
    const rewound = await client.op(sid, 'prompt', { text: `/rewind ${beforeTurn2}` });
    expect(rewound).toMatchObject({
      ok: true,
      command: 'rewind',
      result: {
        scope: 'both',
        strategy: 'active_chain',
        removed: ['d.txt', 'out/c.txt'],
        unrestorable: [],
      },
    });
    const result = (rewound as unknown as { result: { restored: string[] } }).result;
    expect([...result.restored].sort()).toEqual(['b.txt', 'src/a.txt']);
    // out/ stays as an empty directory; the tree of files is the one after turn 1.
    expect(await treeHash()).toBe(afterTurn1);
    expect(await readFile(path.join(stack.workspace, 'src/a.txt'), 'utf8')).toBe('a1\n');
    const triggered = follow.events.filter((e) => e.type === 'rewind_triggered');
    expect(triggered.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        scope: 'both',
        strategy: 'active_chain',
        targetCheckpointId: beforeTurn2,
      }),
    ]);
    // The next turn's model sees turn 1, the rewind notice and its prompt: none of turns
    // 2 and 3 (docs/decisions/0239), though they stay stored.
    const sentIn = async (text: string) => {
      const turn = await client.runTurn(sid, text, follow);
      expect(turn).toMatchObject({ ok: true, status: 'complete' });
      const request = follow.events.findLast(
        (e) => e.type === 'model_request' && e.turnId === (turn.ok ? turn.turnId : ''),
      );
      if (request?.type !== 'model_request') throw new Error(`no request in the turn of ${text}`);
      return request.payload.messages.map((m) => String(m.content));
    };
    const sent = await sentIn('what changed?');
    expect(sent.at(-1)).toBe('what changed?');
    expect(sent.at(-2)).toContain('rewound this conversation');
    expect(sent).toContain('[scenario:undo_create] go');
    expect(sent.join('\n')).not.toMatch(/undo_change|undo_more/);
    const notices = await stack.db
      .selectFrom('messages')
      .select(['data'])
      .where('session_id', '=', sid)
      .execute();
    const kinds = notices.map(
      (r) => (r.data as { semantics?: { kind?: string; uiVisibility?: string } }).semantics,
    );
    expect(kinds.filter((k) => k?.kind === 'rewind_notice')).toEqual([
      expect.objectContaining({ uiVisibility: 'hidden', providerVisibility: 'visible' }),
    ]);
    // /tree lists the abandoned branch; moving there brings its files back.
    const listed = await client.op(sid, 'prompt', { text: '/tree' });
    const { branches } = (listed as unknown as { result: { branches: Branch[] } }).result;
    expect(branches).toHaveLength(2);
    const abandoned = branches.find((b) => !b.active);
    expect(abandoned?.firstMessage?.preview).toBe('[scenario:undo_change] go');
    const back = await client.op(sid, 'prompt', { text: `/tree ${abandoned?.leafId}` });
    expect(back).toMatchObject({ ok: true, result: { scope: 'both', strategy: 'active_chain' } });
    expect(await treeHash()).toBe(afterTurn3);
    // A cold open on a third instance rebuilds the same chain from Postgres (R10.4).
    // rtB took the session over from the first owner, the only other instance.
    await stack.startRuntime('rtC');
    await stack.killRuntime(owner === 'rtA' ? 'rtB' : 'rtA');
    const cold = await sentIn('and now?');
    expect(cold.at(-1)).toBe('and now?');
    expect(cold.at(-2)).toContain('switched this conversation');
    expect(cold).toContain('[scenario:undo_change] go');
    expect(cold).toContain('[scenario:undo_more] go');
    expect(cold).not.toContain('what changed?');
    await follow.stop();
  });

  it('does not overwrite a file the user changed after the agent wrote it', async () => {
    const { sid, follow } = await session();
    const turn = await client.runTurn(sid, '[scenario:undo_more] go', follow);
    const [checkpoint] = checkpointsOf(follow.events, String(turn.ok ? turn.turnId : ''));
    await writeFile(path.join(stack.workspace, 'd.txt'), 'the user wrote this\n');
    const refused = await client.op(sid, 'prompt', { text: `/rewind ${checkpoint}` });
    expect(refused).toMatchObject({
      ok: true,
      result: { strategy: 'fork_required', files: ['d.txt'] },
    });
    expect(await readFile(path.join(stack.workspace, 'd.txt'), 'utf8')).toBe(
      'the user wrote this\n',
    );
    const unknown = await client.op(sid, 'prompt', { text: '/rewind cp_nothing' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_checkpoint' } });
    await follow.stop();
  });

  it('marks the first question rewound away, so no generated title applies (R9.9)', async () => {
    const { sid, follow } = await session();
    const turn = await client.runTurn(sid, '[scenario:undo_create] go', follow);
    const [first] = checkpointsOf(follow.events, String(turn.ok ? turn.turnId : ''));
    const edited = async () =>
      (
        await stack.db
          .selectFrom('sessions')
          .select('first_input_edited')
          .where('id', '=', sid)
          .executeTakeFirstOrThrow()
      ).first_input_edited;
    expect(await edited()).toBe(false);
    expect(await client.op(sid, 'prompt', { text: `/rewind ${first}` })).toMatchObject({
      ok: true,
      result: { strategy: 'active_chain' },
    });
    await waitUntil(edited, { timeoutMs: 10_000, what: 'first_input_edited' });
    await follow.stop();
  });

  it('refuses moves to what the session does not hold, changing nothing', async () => {
    const other = await session();
    await client.runTurn(other.sid, 'elsewhere', other.follow);
    const foreign = await stack.db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', other.sid)
      .executeTakeFirstOrThrow();
    const { sid, follow } = await session();
    const t1 = await client.runTurn(sid, '[scenario:undo_create] go', follow);
    const t2 = await client.runTurn(sid, '[scenario:undo_change] go', follow);
    const [inTurn1] = checkpointsOf(follow.events, String(t1.ok ? t1.turnId : ''));
    const [inTurn2] = checkpointsOf(follow.events, String(t2.ok ? t2.turnId : ''));
    expect(await client.op(sid, 'prompt', { text: `/rewind ${inTurn2}` })).toMatchObject({
      ok: true,
    });
    const listing = async () =>
      ((await client.op(sid, 'prompt', { text: '/tree' })) as unknown as { result: unknown })
        .result;
    const before = await listing();
    const files = await treeHash();
    for (const [text, code] of [
      [`/rewind ${foreign.id}`, 'unknown_message'],
      [`/tree ${foreign.id}`, 'unknown_message'],
      ['/tree msg_*', 'unknown_message'],
      ['/rewind cp_nothing', 'unknown_checkpoint'],
      [`/rewind ${inTurn2}`, 'checkpoint_not_on_branch'],
      ['/rewind ../../etc/passwd', 'unknown_message'],
    ] as const) {
      expect(await client.op(sid, 'prompt', { text }), text).toMatchObject({
        ok: false,
        error: { code },
      });
    }
    expect(await listing()).toEqual(before);
    expect(await treeHash()).toBe(files);
    expect(follow.events.filter((e) => e.type === 'rewind_triggered')).toHaveLength(1);
    // The checkpoint of turn 1 is still in force on the active branch.
    expect(await client.op(sid, 'prompt', { text: '/rewind' })).toMatchObject({
      result: {
        checkpoints: expect.arrayContaining([expect.objectContaining({ checkpointId: inTurn1 })]),
      },
    });
    await other.follow.stop();
    await follow.stop();
  });
});
