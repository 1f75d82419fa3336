import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuntimeClient } from '@agentwire/bus';
import {
  ForkResult,
  TRANSCRIPT_INLINE_BYTES,
  TRANSCRIPT_MAX_BYTES,
  type TranscriptEntry,
} from '@agentwire/contracts';
import { QueryConfig, startQueryService } from '@agentwire/query';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Fork, export and import on every surface (docs/decisions/0243) against real runtime and
 * gateway processes, a query service and the real CLI: a fork through the gateway's route
 * is a session that follows from number 1 with the copied transcript; an export through the
 * gateway imported through `agentwire import` and exported again is the same transcript,
 * ids suffixed (0241); every bad input is a typed error that changes nothing.
 */
let stack: RuntimeStack;
let client: WireDriver;
let runtime: RuntimeClient;
let query: Awaited<ReturnType<typeof startQueryService>>;
let base: string;
let dir: string;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'transcript-surfaces-e2e', gateway: true }, ['rtA']);
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
  runtime = new RuntimeClient(stack.bus, stack.names);
  base = stack.gatewayUrl ?? '';
  dir = await mkdtemp(path.join(tmpdir(), 'aw-transcript-surfaces-'));
}, 120_000);

afterAll(async () => {
  await query?.stop();
  await stack?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
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

/** `POST /sessions/import` with `text` as a JSON Lines body. */
async function importOver(text: string) {
  const res = await fetch(`${base}/sessions/import`, {
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/jsonl' },
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** `POST /sessions/import` on a raw socket, declaring `length` bytes and sending none. */
async function rawImport(length: number): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  socket.write(
    `POST /sessions/import HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/jsonl\r\nContent-Length: ${length}\r\n\r\n`,
  );
  let raw = '';
  for await (const chunk of socket) {
    raw += String(chunk);
    const head = raw.indexOf('\r\n\r\n');
    const size = Number(/content-length: (\d+)/i.exec(raw)?.[1] ?? Number.NaN);
    if (head >= 0 && raw.length >= head + 4 + size) break;
  }
  socket.destroy();
  const head = raw.indexOf('\r\n\r\n');
  return { status: Number(raw.slice(9, 12)), body: raw.slice(head + 4) };
}

/**
 * `GET /sessions/:id/export`, asked again while it answers 503 `not_caught_up` (the store
 * still commits the session's last writes right after a turn), up to a deadline.
 */
async function exportOver(sid: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${base}/sessions/${sid}/export`);
    const text = await res.text();
    const behind = res.status === 503 && text.includes('"not_caught_up"');
    if (!behind || Date.now() > deadline) {
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        disposition: res.headers.get('content-disposition'),
        text,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The exported transcript's message lines. */
const entriesOf = (text: string): TranscriptEntry[] =>
  text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as TranscriptEntry);

/**
 * Entries with the session's id and a copy's id suffix taken out: a fork's or an import's
 * copy reads as its original (docs/decisions/0240, 0241).
 */
const normal = (entries: readonly TranscriptEntry[], session: string, suffix?: string) =>
  entries.map((e) => {
    let line = JSON.stringify(e);
    if (suffix !== undefined) line = line.split(suffix).join('');
    return JSON.parse(line.split(session).join('S')) as TranscriptEntry;
  });

/** What the model sees and what the timeline shows only: fork notices and dividers aside. */
const real = (entries: readonly TranscriptEntry[]) =>
  entries.filter((e) => {
    const m = e.message as { synthetic?: boolean; semantics?: { kind?: string } };
    return m.synthetic !== true && m.semantics?.kind !== 'timeline_event';
  });

const sessionCount = async () =>
  Number(
    (
      await stack.db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../services/cli/src/main.ts',
);

/** Runs `agentwire <args>` against this file's servers and prefix, `stdin` piped in. */
function agentwire(
  args: readonly string[],
  stdin?: string,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NATS_URL: stack.env.natsUrl, AW_PREFIX: stack.env.prefix },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** A new session with two turns (a tool call, then text), and its follower. */
async function sessionWithTurns() {
  const opened = await client.open();
  if (!opened.ok) throw new Error(opened.error.message);
  const sid = String(opened.sessionId);
  const follow = client.follow(sid, 0);
  for (const text of ['[scenario:read_readme] go', 'and then?']) {
    expect(await client.runTurn(sid, text, follow), text).toMatchObject({
      ok: true,
      status: 'complete',
    });
  }
  return { sid, follow };
}

describe('fork, export and import on every surface (docs/decisions/0243)', () => {
  it('forks through the gateway into a session that follows from 1 with the copied transcript; bad inputs change nothing', async () => {
    const { sid, follow } = await sessionWithTurns();
    const exported = await exportOver(sid);
    expect(exported.status, exported.text).toBe(200);
    const entries = entriesOf(exported.text);
    // The last message of turn 1: the one before the second prompt.
    const prompts = entries.flatMap((e, i) => (e.message.role === 'user' ? [i] : []));
    expect(prompts).toHaveLength(2);
    const upToTurn1 = entries.slice(0, prompts[1]);
    const target = upToTurn1.at(-1)?.message.id ?? '';

    const forked = await call('POST', `/sessions/${sid}/fork`, { messageId: target });
    expect(forked).toMatchObject({
      status: 200,
      json: { command: 'fork', queued: false, result: { targetMessageId: target, owner: 'rtA' } },
    });
    const result = ForkResult.parse(forked.json.result);
    const fid = result.forkedSessionId;
    expect(fid).not.toBe(sid);
    expect(result.messageCount).toBe(upToTurn1.length);
    const followFork = client.follow(fid, 0);
    await waitUntil(() => followFork.events.length > 0, {
      timeoutMs: 10_000,
      what: 'fork event 1',
    });
    expect(followFork.events[0]).toMatchObject({
      sequenceNumber: 1,
      type: 'session_forked',
      payload: { originalSessionId: sid, forkedSessionId: fid, targetMessageId: target },
    });
    await waitUntil(() => follow.events.some((e) => e.type === 'session_forked'), {
      timeoutMs: 10_000,
      what: 'session_forked in the original',
    });
    const copied = await exportOver(fid);
    expect(copied.status, copied.text).toBe(200);
    expect(normal(real(entriesOf(copied.text)), fid, `_${fid.slice(-10)}`)).toEqual(
      normal(upToTurn1, sid),
    );
    // A session of its own: a turn through the gateway.
    const turn = await call('POST', `/sessions/${fid}/prompt`, { text: 'fork: go on', wait: true });
    expect(turn).toMatchObject({ status: 200, json: { status: 'complete' } });

    // Bad inputs: each a typed error; no session made, the original's tree as it was.
    const other = await sessionWithTurns();
    const foreign = entriesOf((await exportOver(other.sid)).text)[0]?.message.id;
    await other.follow.stop();
    const sessions = await sessionCount();
    const refusals = [
      [sid, { messageId: 'msg_*' }, 400, 'invalid_request', 'body.messageId'],
      [sid, { messageId: `${target} x` }, 400, 'invalid_request', 'body.messageId'],
      [sid, { messageId: 'aw.rt.>' }, 400, 'invalid_request', 'body.messageId'],
      [sid, {}, 400, 'invalid_request', 'body.messageId'],
      [sid, { messageId: 'msg_nowhere' }, 404, 'unknown_message'],
      [sid, { messageId: foreign }, 404, 'unknown_message'],
      ['ses_nobody_knows', { messageId: target }, 404, 'unknown_session'],
    ] as const;
    for (const [session, body, status, code, field] of refusals) {
      const refused = await call('POST', `/sessions/${session}/fork`, body);
      expect(refused, JSON.stringify(body)).toMatchObject({ status, json: { error: { code } } });
      if (field !== undefined) {
        const { issues } = (refused.json.error as { detail: { issues: { path: string }[] } })
          .detail;
        expect(issues.map((i) => i.path)).toEqual([field]);
      }
    }
    // The runtime checks the id itself, for a client that skips the gateway.
    const overNats = await runtime.fork(sid, 'msg_*');
    expect(overNats).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await sessionCount()).toBe(sessions);
    const again = await exportOver(sid);
    expect(entriesOf(again.text)).toEqual(entries);
    expect(follow.events.filter((e) => e.type === 'session_forked')).toHaveLength(1);

    // The CLI forks the same way, and refuses a bad id before connecting.
    const cli = await agentwire(['fork', sid, target]);
    expect(cli, cli.err).toMatchObject({ code: 0, err: '' });
    expect(cli.out).toMatch(
      new RegExp(`^forked \\S+: ${upToTurn1.length} messages up to ${target} \\(owner rtA\\)\\n$`),
    );
    const bad = await agentwire(['fork', sid, 'msg_*']);
    expect(bad).toMatchObject({ code: 2, out: '' });
    expect(bad.err).toMatch(/^agentwire: .*must be one id.*\n$/);
    await follow.stop();
    await followFork.stop();
    // Each CLI step is a process of its own, a few seconds each under load.
  }, 180_000);

  it('while a turn runs, a fork waits in the queue (202, a ticket) and runs at the boundary', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    await client.runTurn(sid, 'hello', follow);
    const entries = entriesOf((await exportOver(sid)).text);
    const target = entries.at(-1)?.message.id ?? '';
    const started = await client.op(sid, 'prompt', { text: '[scenario:slow_text] go' });
    expect(started).toMatchObject({ ok: true, turnId: expect.any(String) });
    const queued = await call('POST', `/sessions/${sid}/fork`, { messageId: target });
    expect(queued).toMatchObject({
      status: 202,
      json: { queued: true, delivery: 'queue', inputId: expect.any(String) },
    });
    const ticket = await call(
      'GET',
      `/sessions/${sid}/tickets/${String(queued.json.inputId)}?until=completed&timeoutMs=60000`,
    );
    expect(ticket).toMatchObject({ status: 200, json: { state: 'completed', status: 'complete' } });
    await waitUntil(() => follow.events.some((e) => e.type === 'session_forked'), {
      timeoutMs: 10_000,
      what: 'session_forked of the queued fork',
    });
    const fid = follow.events.flatMap((e) =>
      e.type === 'session_forked' ? [e.payload.forkedSessionId] : [],
    )[0];
    if (fid === undefined) throw new Error('no session_forked');
    const followFork = client.follow(fid, 0);
    await waitUntil(() => followFork.events.length > 0, {
      timeoutMs: 10_000,
      what: 'fork event 1',
    });
    expect(followFork.events[0]).toMatchObject({ sequenceNumber: 1, type: 'session_forked' });
    const copied = await exportOver(fid);
    expect(normal(real(entriesOf(copied.text)), fid, `_${fid.slice(-10)}`)).toEqual(
      normal(entries, sid),
    );
    await follow.stop();
    await followFork.stop();
  });

  it('exports through the gateway, imports through the CLI, and the import exports the same transcript; bad files change nothing', async () => {
    const { sid, follow } = await sessionWithTurns();
    // A second branch: back to before the second prompt, then a turn there.
    const before = entriesOf((await exportOver(sid)).text);
    const second = before.filter((e) => e.message.role === 'user')[1]?.message.id;
    const rewound = await call('POST', `/sessions/${sid}/rewind`, { target: second });
    expect(rewound, JSON.stringify(rewound.json)).toMatchObject({ status: 200 });
    await client.runTurn(sid, 'on the new branch', follow);

    const exported = await exportOver(sid);
    expect(exported).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^application\/jsonl/),
      disposition: `attachment; filename="${sid}.jsonl"`,
    });
    const entries = entriesOf(exported.text);
    expect(entries.length).toBeGreaterThan(before.length);
    const file = path.join(dir, `${sid}.jsonl`);
    await writeFile(file, exported.text);

    const imported = await agentwire(['import', file]);
    expect(imported, imported.err).toMatchObject({ code: 0, err: '' });
    expect(imported.out).toMatch(/^\S+\n$/);
    const iid = imported.out.trim();
    const again = await exportOver(iid);
    expect(again.status, again.text).toBe(200);
    const suffix = `_${iid.slice(-10)}`;
    const copies = entriesOf(again.text);
    expect(copies.every((e) => e.message.id.endsWith(suffix))).toBe(true);
    expect(normal(copies, iid, suffix)).toEqual(normal(entries, sid));
    // The CLI's own export of the import is the gateway's, line for line (the header's
    // time aside).
    const viaCli = await agentwire(['export', iid]);
    expect(viaCli).toMatchObject({ code: 0, err: '' });
    expect(entriesOf(viaCli.out)).toEqual(copies);
    // stdin works too: a second import of the same file is a session of its own.
    const piped = await agentwire(['import', '-', '--json'], exported.text);
    expect(piped).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(piped.out)).toMatchObject({ imported: entries.length });

    // A file over what one request carries (a 1.2 MiB prompt in it) goes through the
    // uploads bucket, and its import exports through the blob store as the same file.
    const big = 'big words '.repeat(120 * 1024);
    let grown = false;
    const large = [
      exported.text.trim().split('\n')[0],
      ...entries.map((e) => {
        const text = e.parts.find((p) => p.type === 'text');
        if (grown || text === undefined) return JSON.stringify(e);
        grown = true;
        const parts = e.parts.map((p) => (p === text ? { ...p, text: `${text.text}${big}` } : p));
        return JSON.stringify({ ...e, parts });
      }),
    ].join('\n');
    expect(Buffer.byteLength(large)).toBeGreaterThan(TRANSCRIPT_INLINE_BYTES);
    const largeImport = await importOver(large);
    expect(largeImport.status, JSON.stringify(largeImport.json).slice(0, 300)).toBe(201);
    const lid = String(largeImport.json.sessionId);
    const largeExport = await exportOver(lid);
    expect(largeExport.status, largeExport.text.slice(0, 300)).toBe(200);
    expect(normal(entriesOf(largeExport.text), lid, `_${lid.slice(-10)}`)).toEqual(
      normal(entriesOf(large), sid),
    );
    const largeFile = path.join(dir, 'large.jsonl');
    await writeFile(largeFile, large);
    const largeCli = await agentwire(['import', largeFile, '--json']);
    expect(largeCli, largeCli.err).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(largeCli.out)).toMatchObject({ imported: entries.length });

    // Bad files and unknown sessions: each a typed error, and no session made.
    const sessions = await sessionCount();
    const lines = exported.text.trim().split('\n');
    const cyclic = lines.map((line, i) => {
      if (i !== 1) return line;
      const entry = JSON.parse(line) as TranscriptEntry;
      return JSON.stringify({
        ...entry,
        message: { ...entry.message, treeParentId: entry.message.id },
      });
    });
    // Files over one request (uploaded, then checked by the runtime like any other), over
    // what an import takes (refused by the client, unsent) and over the gateway's body limit.
    const uploaded = `${lines[0]}\n${'x'.repeat(950 * 1024)}`;
    const quotes = `${lines[0]}\n${'"'.repeat(1000 * 1024)}`;
    const overImport = `${lines[0]}\n${'x'.repeat(TRANSCRIPT_MAX_BYTES)}`;
    const refusals = [
      ['not a transcript', 400, 'invalid_transcript', 1, /line 1 is not JSON/],
      [`${lines[0]}\n{"message":`, 400, 'invalid_transcript', 2, /line 2 is not JSON/],
      [cyclic.join('\n'), 400, 'invalid_transcript', 2, /cycle/],
      [uploaded, 400, 'invalid_transcript', 2, /line 2 is not JSON/],
      [quotes, 400, 'invalid_transcript', 2, /line 2 is not JSON/],
      [overImport, 413, 'transcript_too_large', 0, /an import takes/],
    ] as const;
    for (const [text, status, code, line, message] of refusals) {
      const refused = await importOver(text);
      expect(refused, text.slice(0, 60)).toMatchObject({ status, json: { error: { code } } });
      const error = refused.json.error as { message: string; detail?: { line: number } };
      expect(error.message).toMatch(message);
      if (line !== undefined) expect(error.detail?.line).toBe(line);
    }
    // A body declared over the gateway's limit (65 MiB) is refused before it is read:
    // Fastify's refusal, as JSON too. Declared, not sent: a client still sending 65 MiB when
    // the answer comes meets a closed socket (EPIPE) instead of reading it.
    const declared = await rawImport(TRANSCRIPT_MAX_BYTES + 2 * 1024 * 1024);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: { code: 'body_too_large' } });
    const badFile = path.join(dir, 'bad.jsonl');
    await writeFile(badFile, `${lines[0]}\n{"message":\n`);
    const bad = await agentwire(['import', badFile]);
    expect(bad).toMatchObject({ code: 1, out: '' });
    expect(bad.err).toMatch(/^agentwire: import: line 2 is not JSON \(invalid_transcript\)\n$/);
    const missing = await agentwire(['import', path.join(dir, 'missing.jsonl')]);
    expect(missing).toMatchObject({ code: 2, out: '' });
    expect(missing.err).toMatch(/^agentwire: import: cannot read .*missing\.jsonl: ENOENT/);
    expect(await sessionCount()).toBe(sessions);

    const unknown = await exportOver('ses_nobody_knows');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'not_found' } });
    const unknownCli = await agentwire(['export', 'ses_nobody_knows']);
    expect(unknownCli).toMatchObject({ code: 3, out: '' });
    expect(unknownCli.err).toMatch(/^agentwire: export: .*\(not_found\)\n$/);
    await follow.stop();
  }, 180_000);
});
