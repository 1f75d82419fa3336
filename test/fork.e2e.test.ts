import { QueryClient, RuntimeClient } from '@agentwire/bus';
import type { SessionEvent, TranscriptEntry } from '@agentwire/contracts';
import { ModelRequestChain } from '@agentwire/domain';
import { QueryConfig, startQueryService } from '@agentwire/query';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Fork into a new session against real runtime processes (issue 12 item 4,
 * docs/decisions/0240): the new session follows from number 1, holds exactly the
 * transcript up to the message, and both go on separately, also after their owner died.
 */
let stack: RuntimeStack;
let client: WireDriver;
let query: Awaited<ReturnType<typeof startQueryService>>;
let queries: QueryClient;
let runtimes: RuntimeClient;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'fork-e2e' }, ['rtA', 'rtB']);
  ({ client } = stack);
  const { env } = stack;
  query = await startQueryService(
    QueryConfig.parse({
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      AW_PREFIX: env.prefix,
      HTTP_HOST: '127.0.0.1',
      AW_PG_POOL_SIZE: '2',
    }),
  );
  queries = new QueryClient(stack.bus, stack.names, { timeoutMs: 15_000 });
  runtimes = new RuntimeClient(stack.bus, stack.names, { timeoutMs: 15_000 });
}, 120_000);

afterAll(async () => {
  await query?.stop();
  await stack?.stop();
});

/**
 * The session's stored messages (the real ones: notices and dividers aside), in order,
 * once the worker committed every write of the session (the export's barrier).
 */
async function transcript(sid: string) {
  const settled = await exportOf(sid);
  if (!settled.ok && settled.error.code !== 'not_found') throw new Error(JSON.stringify(settled));
  const rows = await stack.db
    .selectFrom('messages')
    .select(['id', 'role', 'data'])
    .where('session_id', '=', sid)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const parts = await stack.db
    .selectFrom('parts')
    .select(['message_id', 'type', 'data'])
    .where('session_id', '=', sid)
    .orderBy('id')
    .execute();
  return rows
    .filter((r) => {
      const d = r.data as { synthetic?: boolean; semantics?: { kind?: string } };
      return d.synthetic !== true && d.semantics?.kind !== 'timeline_event';
    })
    .map((r) => ({
      id: r.id,
      role: r.role,
      parts: parts
        .filter((p) => p.message_id === r.id)
        .map((p) => {
          const {
            id: _id,
            messageId: _m,
            sessionId: _s,
            ...rest
          } = p.data as Record<string, unknown>;
          return rest;
        }),
    }));
}

/**
 * What the model was sent in the turn `turnId`, in full: a request names only what it adds
 * to the one before (docs/decisions/0161), so the chain is rebuilt from the session's events.
 */
function sentIn(events: readonly SessionEvent[], turnId: string): string[] {
  const chain = new ModelRequestChain();
  let sent: readonly { content: unknown }[] | undefined;
  for (const e of events) {
    const messages = chain.add(e);
    if (e.type === 'model_request' && e.turnId === turnId && messages !== undefined)
      sent = messages;
  }
  if (sent === undefined) throw new Error(`no request in ${turnId}`);
  return sent.map((m) => String(m.content));
}

/** The session's export, asked again while the store is still committing its writes. */
async function exportOf(sessionId: string) {
  for (let attempt = 0; ; attempt += 1) {
    const reply = await queries.exportSession(sessionId);
    const retry = !reply.ok && reply.error.code === 'not_caught_up' && attempt < 100;
    if (!retry) return reply;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('fork (issue 12)', () => {
  it('forks at a message of turn 2 into a session that follows from 1 and goes on alone', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    expect(await client.op(sid, 'set_mode', { mode: 'yolo' })).toMatchObject({ ok: true });
    for (const scenario of ['undo_create', 'undo_change']) {
      expect(await client.runTurn(sid, `[scenario:${scenario}] go`, follow)).toMatchObject({
        ok: true,
        status: 'complete',
      });
    }
    const upToTurn2 = await transcript(sid);
    const target = upToTurn2.at(-1)?.id ?? '';
    expect(await client.runTurn(sid, '[scenario:undo_more] go', follow)).toMatchObject({
      ok: true,
    });
    const forked = await client.op(sid, 'prompt', { text: `/fork ${target}` });
    expect(forked).toMatchObject({
      ok: true,
      command: 'fork',
      result: { targetMessageId: target, messageCount: upToTurn2.length },
    });
    const fid = String(
      (forked as unknown as { result: { forkedSessionId: string } }).result.forkedSessionId,
    );
    expect(fid).not.toBe(sid);
    // Both sessions say so; the new one from number 1.
    await waitUntil(() => follow.events.some((e) => e.type === 'session_forked'), {
      timeoutMs: 5_000,
    });
    expect(follow.events.find((e) => e.type === 'session_forked')?.payload).toEqual({
      originalSessionId: sid,
      forkedSessionId: fid,
      targetMessageId: target,
    });
    const followFork = client.follow(fid, 0);
    await waitUntil(() => followFork.events.length > 0, { timeoutMs: 5_000 });
    expect(followFork.events[0]).toMatchObject({
      sequenceNumber: 1,
      type: 'session_forked',
      payload: { originalSessionId: sid, forkedSessionId: fid, targetMessageId: target },
    });
    // Exactly the transcript up to that message: the same messages and parts, copied.
    const copied = await transcript(fid);
    expect(copied.map(({ role, parts }) => ({ role, parts }))).toEqual(
      upToTurn2.map(({ role, parts }) => ({ role, parts })),
    );
    expect(copied.every((m) => !upToTurn2.some((o) => o.id === m.id))).toBe(true);
    // Its timeline shows the fork, the model never does.
    const divider = await stack.db
      .selectFrom('parts')
      .select('data')
      .where('session_id', '=', fid)
      .where('type', '=', 'timeline')
      .execute();
    expect(divider.map((d) => d.data)).toEqual([
      expect.objectContaining({
        kind: 'session_fork',
        originalSessionId: sid,
        forkedSessionId: fid,
      }),
    ]);
    // The fork moves to the other instance: released by its owner (`close`), then opened
    // wherever the open's queue group sends it (its reply names the owner), until that is
    // not the original's owner.
    const originalOwner = String(opened.owner);
    let forkOwner = String((forked as unknown as { result: { owner: string } }).result.owner);
    for (let attempt = 0; forkOwner === originalOwner && attempt < 30; attempt += 1) {
      await client.op(fid, 'close');
      const reopened = await client.open(fid);
      if (!reopened.ok) throw new Error(`reopening the fork: ${JSON.stringify(reopened)}`);
      forkOwner = String(reopened.owner);
    }
    expect(forkOwner).not.toBe(originalOwner);
    // Both run a turn at once, each on its own instance, each on its own chain.
    const [apartFork, apartOriginal] = await Promise.all([
      client.runTurn(fid, 'fork: apart', followFork, { inputId: 'in-fa' }),
      client.runTurn(sid, 'original: apart', follow, { inputId: 'in-oa' }),
    ]);
    expect(apartFork).toMatchObject({ ok: true, status: 'complete' });
    expect(apartOriginal).toMatchObject({ ok: true, status: 'complete' });
    // Where each turn ran, from the runtimes' own logs (turn_started names session and turn).
    const ranOn = (turnId: string) =>
      [...stack.runtimes].flatMap(([id, p]) =>
        p.lines.some((l) => l.includes(turnId) && l.includes('"turn_started"')) ? [id] : [],
      );
    const leases = () =>
      [...stack.runtimes.values()].flatMap((p) => p.lines.filter((l) => /lease|reclaimed/.test(l)));
    expect(
      [
        ranOn(String(apartFork.ok ? apartFork.turnId : '')),
        ranOn(String(apartOriginal.ok ? apartOriginal.turnId : '')),
      ],
      leases().join('\n'),
    ).toEqual([[forkOwner], [originalOwner]]);
    const apartSent = sentIn(followFork.events, String(apartFork.ok ? apartFork.turnId : ''));
    expect(apartSent.at(-1)).toBe('fork: apart');
    expect(apartSent.at(-2)).toContain(`forked from session ${sid}`);
    expect(apartSent.join('\n')).not.toContain('undo_more');
    const apartOriginalSent = sentIn(
      follow.events,
      String(apartOriginal.ok ? apartOriginal.turnId : ''),
    );
    expect(apartOriginalSent.at(-1)).toBe('original: apart');
    expect(apartOriginalSent.join('\n')).not.toContain('fork: apart');
    // The original's owner dies; each session goes on, the original where it is taken over.
    await stack.killRuntime(originalOwner);
    const inFork = await client.runTurn(fid, 'fork: what now?', followFork, { inputId: 'in-f' });
    expect(inFork).toMatchObject({ ok: true, status: 'complete' });
    const forkSent = sentIn(followFork.events, String(inFork.ok ? inFork.turnId : ''));
    expect(forkSent.at(-1)).toBe('fork: what now?');
    expect(forkSent.join('\n')).toContain(`forked from session ${sid}`);
    expect(forkSent).toContain('[scenario:undo_change] go');
    expect(forkSent.join('\n')).not.toContain('undo_more');
    const inOriginal = await client.runTurn(sid, 'original: and you?', follow, { inputId: 'in-o' });
    expect(inOriginal).toMatchObject({ ok: true, status: 'complete' });
    const originalSent = sentIn(follow.events, String(inOriginal.ok ? inOriginal.turnId : ''));
    expect(originalSent, JSON.stringify(originalSent)).toContain('[scenario:undo_more] go');
    expect(originalSent.join('\n')).not.toContain('fork: what now?');
    expect(forkSent.join('\n')).not.toContain('original: and you?');
    await follow.stop();
    await followFork.stop();
  });

  it('refuses a fork at a message it does not hold, and changes nothing', async () => {
    const a = await client.open();
    const b = await client.open();
    if (!a.ok || !b.ok) throw new Error('no session');
    const sa = String(a.sessionId);
    const sb = String(b.sessionId);
    const followB = client.follow(sb, 0);
    expect(await client.runTurn(sb, 'hello', followB)).toMatchObject({ ok: true });
    const [other] = await transcript(sb);
    for (const [text, code] of [
      ['/fork', 'invalid_command'],
      ['/fork msg_nowhere', 'unknown_message'],
      [`/fork ${other?.id}`, 'unknown_message'],
      ['/fork a b', 'invalid_command'],
    ] as const) {
      expect(await client.op(sa, 'prompt', { text }), text).toMatchObject({
        ok: false,
        error: { code },
      });
    }
    const sessions = await stack.db.selectFrom('sessions').select('id').execute();
    expect(sessions.map((s) => s.id)).not.toContain(undefined);
    expect(await transcript(sb)).toHaveLength(2);
    await followB.stop();
  });

  it('exports a session and imports it back as a new one with an identical transcript', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    expect(await client.op(sid, 'set_mode', { mode: 'yolo' })).toMatchObject({ ok: true });
    for (const scenario of ['undo_create', 'undo_change']) {
      await client.runTurn(sid, `[scenario:${scenario}] go`, follow);
    }
    // A branch too: rewind to before turn 2, then a turn on the new branch.
    const [checkpoint] = follow.events.flatMap((e) =>
      e.type === 'checkpoint_created' &&
      e.turnId === follow.events.findLast((t) => t.type === 'turn_started')?.turnId
        ? [e.payload.checkpointId]
        : [],
    );
    expect(await client.op(sid, 'prompt', { text: `/rewind ${checkpoint}` })).toMatchObject({
      ok: true,
    });
    await client.runTurn(sid, 'on the new branch', follow);
    const exported = await exportOf(sid);
    if (!exported.ok) throw new Error(JSON.stringify(exported));
    expect(exported.messages).toBeGreaterThan(6);
    const imported = await runtimes.importSession(exported.transcript);
    if (!imported.ok) throw new Error(JSON.stringify(imported));
    expect(imported.imported).toBe(exported.messages);
    const iid = imported.sessionId;
    // The import's own export is the same transcript, ids aside (each is the new session's).
    const again = await exportOf(iid);
    if (!again.ok) throw new Error(JSON.stringify(again));
    const normal = (text: string, session: string, suffix: string) =>
      text
        .trim()
        .split('\n')
        .slice(1)
        .map(
          (line) =>
            JSON.parse(line.split(suffix).join('').split(session).join('S')) as TranscriptEntry,
        );
    const suffix = `_${iid.slice(-10)}`;
    expect(normal(again.transcript, iid, suffix)).toEqual(
      normal(exported.transcript, sid, '\u0000'),
    );
    // A normal session from then on: its model sees the active chain, the branch included.
    const followImport = client.follow(iid, 0);
    const turn = await client.runTurn(iid, 'imported: go on', followImport);
    expect(turn).toMatchObject({ ok: true, status: 'complete' });
    const sent = sentIn(followImport.events, String(turn.ok ? turn.turnId : ''));
    expect(sent.at(-1)).toBe('imported: go on');
    expect(sent).toContain('on the new branch');
    expect(sent.join('\n')).not.toContain('undo_change');
    // Bad files: a typed error naming the line, and no session made.
    const before = (await stack.db.selectFrom('sessions').select('id').execute()).length;
    const lines = exported.transcript.trim().split('\n');
    const cyclic = lines.map((line, i) => {
      if (i !== 1) return line;
      const entry = JSON.parse(line) as TranscriptEntry;
      return JSON.stringify({
        ...entry,
        message: { ...entry.message, treeParentId: entry.message.id },
      });
    });
    for (const [text, code, line] of [
      ['not a transcript', 'invalid_transcript', 1],
      [`${lines[0]}\n{"message":`, 'invalid_transcript', 2],
      [cyclic.join('\n'), 'invalid_transcript', 2],
      // Over one request: uploaded, then checked by the runtime like any other file.
      [`${lines[0]}\n${'x'.repeat(950 * 1024)}`, 'invalid_transcript', 2],
    ] as const) {
      const refused = await runtimes.importSession(text);
      expect(refused, text.slice(0, 40)).toMatchObject({
        ok: false,
        error: { code, detail: { line } },
      });
    }
    expect((await stack.db.selectFrom('sessions').select('id').execute()).length).toBe(before);
    await follow.stop();
    await followImport.stop();
  });
});
