import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuntimeClient } from '@agentwire/bus';
import { isCommandPromptReply, type SessionEvent, TreeListing } from '@agentwire/contracts';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `/rewind` and `/tree` as first-class operations (docs/decisions/0242) against real
 * runtime and gateway processes: checkpoints listed, a rewind and a move back through the
 * gateway's routes, the tree read over NATS with `RuntimeClient.tree`, and every bad input a
 * typed error that changes neither the tree nor the files.
 */
let stack: RuntimeStack;
let client: WireDriver;
let runtime: RuntimeClient;
let base: string;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'tree-surfaces-e2e', gateway: true }, ['rtA']);
  ({ client } = stack);
  runtime = new RuntimeClient(stack.bus, stack.names);
  base = stack.gatewayUrl ?? '';
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface Json {
  [k: string]: unknown;
}

async function call(method: 'GET' | 'POST', route: string, body?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** A hash of every file's path and bytes in the workspace: equal trees hash equal. */
async function filesHash(): Promise<string> {
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

const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../services/cli/src/main.ts',
);

/** Runs `agentwire <args>` against this file's servers and prefix. */
function agentwire(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NATS_URL: stack.env.natsUrl, AW_PREFIX: stack.env.prefix },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** A new session in yolo mode (nothing asks), with a follower. */
async function session() {
  const opened = await client.open();
  if (!opened.ok) throw new Error(opened.error.message);
  const sid = String(opened.sessionId);
  const follow = client.follow(sid, 0);
  expect(await client.op(sid, 'set_mode', { mode: 'yolo' })).toMatchObject({ ok: true });
  return { sid, follow };
}

const checkpointsOf = (events: readonly SessionEvent[], turnId: string) =>
  events.flatMap((e) =>
    e.type === 'checkpoint_created' && e.turnId === turnId ? [e.payload.checkpointId] : [],
  );

/** The turn id of a `runTurn` reply. */
const turnOf = (reply: { ok: boolean; [k: string]: unknown }) =>
  reply.ok ? String(reply.turnId) : '';

describe('rewind and tree on every surface (docs/decisions/0242)', () => {
  it('lists checkpoints, rewinds, lists and moves the tree through the gateway; bad inputs change nothing', async () => {
    const other = await session();
    await client.runTurn(other.sid, 'elsewhere', other.follow);
    const foreign = await stack.db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', other.sid)
      .executeTakeFirstOrThrow();
    await other.follow.stop();

    const { sid, follow } = await session();
    const t1 = await client.runTurn(sid, '[scenario:undo_create] go', follow);
    const afterTurn1 = await filesHash();
    const t2 = await client.runTurn(sid, '[scenario:undo_change] go', follow);
    expect([t1, t2]).toMatchObject([{ status: 'complete' }, { status: 'complete' }]);
    const afterTurn2 = await filesHash();
    const inTurn1 = checkpointsOf(follow.events, turnOf(t1));
    const inTurn2 = checkpointsOf(follow.events, turnOf(t2));
    expect(inTurn2).toHaveLength(2);

    const listed = await call('GET', `/sessions/${sid}/checkpoints`);
    expect(listed).toMatchObject({ status: 200, json: { command: 'rewind', queued: false } });
    const ids = (listed.json.result as { checkpoints: { checkpointId: string }[] }).checkpoints;
    expect(ids.map((c) => c.checkpointId)).toEqual([...inTurn1, ...inTurn2]);

    const rewound = await call('POST', `/sessions/${sid}/rewind`, { target: inTurn2[0] });
    expect(rewound).toMatchObject({
      status: 200,
      json: {
        command: 'rewind',
        result: { scope: 'both', strategy: 'active_chain', targetCheckpointId: inTurn2[0] },
      },
    });
    expect(await filesHash()).toBe(afterTurn1);

    const tree = async () => {
      const reply = await call('GET', `/sessions/${sid}/tree`);
      expect(reply).toMatchObject({ status: 200, json: { command: 'tree' } });
      return TreeListing.parse(reply.json.result);
    };
    const before = await tree();
    expect(before.branches).toHaveLength(2);
    const abandoned = before.branches.find((b) => !b.active);
    expect(abandoned?.firstMessage?.preview).toBe('[scenario:undo_change] go');
    expect(before.leafId).toBe((rewound.json.result as { leafId: string }).leafId);

    const refusals = [
      ['POST', 'rewind', { target: 'cp_nothing' }, 404, 'unknown_checkpoint'],
      ['POST', 'rewind', { target: foreign.id }, 404, 'unknown_message'],
      ['POST', 'tree', { messageId: foreign.id }, 404, 'unknown_message'],
      ['POST', 'rewind', { target: inTurn2[0] }, 409, 'checkpoint_not_on_branch'],
      ['POST', 'rewind', { target: 'msg_*' }, 400, 'invalid_request', 'body.target'],
      ['POST', 'rewind', { target: `${inTurn1[0]} x` }, 400, 'invalid_request', 'body.target'],
      ['POST', 'tree', { messageId: 'aw.rt.>' }, 400, 'invalid_request', 'body.messageId'],
      ['POST', 'tree', { messageId: `${abandoned?.leafId}\t` }, 400, 'invalid_request'],
    ] as const;
    for (const [method, route, body, status, code, field] of refusals) {
      const refused = await call(method, `/sessions/${sid}/${route}`, body);
      expect(refused, JSON.stringify(body)).toMatchObject({ status, json: { error: { code } } });
      if (field !== undefined) {
        const { issues } = (refused.json.error as { detail: { issues: { path: string }[] } })
          .detail;
        expect(issues.map((i) => i.path)).toEqual([field]);
      }
      expect(await tree(), JSON.stringify(body)).toEqual(before);
      expect(await filesHash()).toBe(afterTurn1);
    }
    // The runtime checks the ids itself, for a client that skips the gateway.
    const overNats = await runtime.rewind(sid, 'msg_*');
    expect(overNats).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(overNats.ok ? '' : overNats.error.message).toMatch(/^invalid request: target: /);
    expect(await tree()).toEqual(before);
    expect(follow.events.filter((e) => e.type === 'rewind_triggered')).toHaveLength(1);

    const back = await call('POST', `/sessions/${sid}/tree`, { messageId: abandoned?.leafId });
    expect(back).toMatchObject({
      status: 200,
      json: {
        command: 'tree',
        result: { scope: 'both', strategy: 'active_chain', targetMessageId: abandoned?.leafId },
      },
    });
    expect(await filesHash()).toBe(afterTurn2);

    const viaNats = await runtime.tree(sid);
    if (!viaNats.ok || !isCommandPromptReply(viaNats)) throw new Error(JSON.stringify(viaNats));
    const now = TreeListing.parse(viaNats.result);
    expect(now.leafId).toBe((back.json.result as { leafId: string }).leafId);
    expect(now.branches).toHaveLength(2);
    expect(now.branches.find((b) => b.active)?.firstMessage?.preview).toBe(
      '[scenario:undo_create] go',
    );
    expect(await tree()).toEqual(now);
    await follow.stop();
  });

  it('while a turn runs, a listing waits in the queue (202, a ticket) and runs at the boundary', async () => {
    const { sid, follow } = await session();
    const started = await client.op(sid, 'prompt', { text: '[scenario:slow_text] go' });
    expect(started).toMatchObject({ ok: true, turnId: expect.any(String) });
    const queued = await call('GET', `/sessions/${sid}/tree`);
    expect(queued).toMatchObject({
      status: 202,
      json: { queued: true, delivery: 'queue', inputId: expect.any(String) },
    });
    const ticket = await call(
      'GET',
      `/sessions/${sid}/tickets/${String(queued.json.inputId)}?until=completed&timeoutMs=60000`,
    );
    expect(ticket).toMatchObject({ status: 200, json: { state: 'completed', status: 'complete' } });
    await follow.stop();
  });

  it('agentwire checkpoints, rewind and tree do the same from the command line', async () => {
    const { sid, follow } = await session();
    await client.runTurn(sid, '[scenario:undo_create] go', follow);
    const t2 = await client.runTurn(sid, '[scenario:undo_change] go', follow);
    const [beforeTurn2] = checkpointsOf(follow.events, turnOf(t2));
    const listed = await agentwire('checkpoints', sid);
    expect(listed).toMatchObject({ code: 0, err: '' });
    expect(listed.out.trim().split('\n')).toHaveLength(4);
    const rewound = await agentwire('rewind', sid, String(beforeTurn2));
    expect(rewound).toMatchObject({ code: 0, err: '' });
    expect(rewound.out).toMatch(
      /^rewound: the conversation ends at \S+ \(files and conversation\)/,
    );
    const tree = await agentwire('tree', sid);
    const lines = tree.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('* '))).toHaveLength(1);
    expect(tree.out).toContain('"[scenario:undo_change] go"');
    const asJson = await agentwire('tree', sid, '--json');
    const abandoned = TreeListing.parse(JSON.parse(asJson.out).result).branches.find(
      (b) => !b.active,
    );
    const moved = await agentwire('tree', sid, String(abandoned?.leafId));
    expect(moved).toMatchObject({ code: 0, err: '' });
    expect(moved.out).toMatch(/^moved: the conversation ends at /);
    const unknown = await agentwire('rewind', sid, 'cp_nothing');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^agentwire: rewind: .* \(unknown_checkpoint\)\n$/);
    expect(unknown.out).toBe('');
    await follow.stop();
    // Each step is a process of its own, a few seconds each under load.
  }, 120_000);
});
