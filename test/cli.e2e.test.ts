import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type Stack, startStack } from '@agentwire/gateway/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../services/cli/src/main.ts',
);

let env: TestEnvironment;
let stack: Stack;

beforeAll(async () => {
  env = await createTestEnvironment();
  // One CLI process per step: under CI load a test's steps take longer than the stack's
  // default 20 s permission timeout, and its last step answers the permission.
  stack = await startStack(env, {
    serviceEnv: { runtime: { AW_PERMISSION_TIMEOUT_MS: '120000' } },
  });
});

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
});

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `agentwire <args>` against this file's servers and prefix. */
function agentwire(...args: string[]): Promise<CliRun> {
  return agentwireWith({}, ...args);
}

/** Runs `agentwire <args>` with `extra` in its environment (another NATS_URL, NO_COLOR). */
function agentwireWith(extra: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NATS_URL: env.natsUrl, AW_PREFIX: env.prefix, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `(seq, type)` of each event line (`  12 tool_call_started  ...`). */
function eventLines(stdout: string): { seq: number; type: string }[] {
  return [...stdout.matchAll(/^ *(\d+) ([a-z_]+)/gm)].map((m) => ({
    seq: Number(m[1]),
    type: m[2] ?? '',
  }));
}

describe('agentwire CLI against real runtime, worker and projection processes', () => {
  it('demo runs a scripted session with tools and a permission, then prints the projection', async () => {
    const run = await agentwire('demo');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = eventLines(run.stdout);
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
    const types = new Set(lines.map((l) => l.type));
    for (const type of [
      'turn_steer_queued',
      'session_input_promoted',
      'turn_started',
      'model_request',
      'model_streaming',
      'tool_call_scheduled',
      'tool_call_started',
      'tool_call_result',
      'permission_requested',
      'permission_resolved',
      'tool_batch_complete',
      'model_complete',
      'turn_complete',
    ]) {
      expect(types, type).toContain(type);
    }
    expect(lines.at(-1)?.type).toBe('turn_complete');
    expect(run.stdout).toMatch(/-> answered \S+: allow/);
    expect(run.stdout).toMatch(/permission_resolved +allow/);
    const asOf = /projection \(asOfSeq (\d+)\):\n([\s\S]*)$/.exec(run.stdout);
    expect(Number(asOf?.[1])).toBe(lines.at(-1)?.seq);
    expect(JSON.parse(asOf?.[2] ?? 'null')).toEqual(expect.any(Object));
  });

  it('new, prompt --wait, follow --after and projection work on one session', async () => {
    const created = await agentwire('new');
    expect(created.code).toBe(0);
    const sid = created.stdout.trim();
    expect(sid).toMatch(/^[A-Za-z0-9_-]+$/);
    const prompted = await agentwire('prompt', sid, 'hello', 'world', '--wait');
    expect(prompted.code).toBe(0);
    expect(prompted.stdout).toMatch(/ complete /);
    const all = await agentwire('follow', sid, '--until', 'turn_complete');
    expect(all.code).toBe(0);
    const seen = eventLines(all.stdout);
    expect(seen.map((l) => l.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(all.stdout).toMatch(/turn_started +turn \d+: "hello world"/);
    const from = seen.length - 2;
    const rest = await agentwire(
      'follow',
      sid,
      '--after',
      String(from),
      '--until',
      'turn_complete',
    );
    expect(eventLines(rest.stdout)).toEqual(seen.slice(from));
    const projection = await agentwire('projection', sid);
    expect(projection.code).toBe(0);
    expect(JSON.parse(projection.stdout)).toMatchObject({ asOfSeq: expect.any(Number) });
  });

  it('fails clearly, with exit codes, on bad usage and unknown sessions or requests', async () => {
    const sid = (await agentwire('new')).stdout.trim();
    // A prompt and a follow of the same unknown id at once: the runtime refuses the prompt
    // without taking the id's lease (0077), so the follow must not see a trace of it either.
    const runs = await Promise.all([
      agentwire('prompt', 'no-such-session', 'hi'),
      agentwire('follow', 'no-such-session'),
      agentwire('answer', sid, 'no-such-request', 'allow'),
      agentwire('prompt', 'bad id!', 'hi'),
      agentwire('follow', sid, '--after', 'soon'),
      agentwire('explode'),
    ]);
    expect(runs.map((r) => [r.code, r.stderr.split('\n')[0]])).toEqual([
      [3, expect.stringMatching(/^agentwire: prompt: .*\(unknown_session\)$/)],
      [3, 'agentwire: no session no-such-session'],
      [3, expect.stringMatching(/^agentwire: answer: .*\(unknown_permission_request\)$/)],
      [2, expect.stringMatching(/^agentwire: invalid session id "bad id!"/)],
      [2, expect.stringMatching(/^agentwire: option '--after <n>' argument 'soon' is invalid/)],
      [2, "agentwire: unknown command 'explode' (Did you mean export?) (see agentwire --help)"],
    ]);
    expect(runs.every((r) => r.stdout === '')).toBe(true);
  });

  it('every command answers --help with its usage, --json and an example, exit 0', async () => {
    const top = await agentwire('--help');
    expect(top.code).toBe(0);
    const names = [...top.stdout.matchAll(/^ {2}([a-z]+) /gm)]
      .map((m) => m[1] ?? '')
      .filter((n) => n !== 'help');
    expect(names).toEqual(expect.arrayContaining(['sessions', 'history', 'show', 'tail', 'queue']));
    const runs = await Promise.all(names.map((name) => agentwire(name, '--help')));
    runs.forEach((run, i) => {
      expect([names[i], run.code, run.stderr]).toEqual([names[i], 0, '']);
      expect(run.stdout).toContain(`Usage: agentwire ${names[i]}`);
      expect(run.stdout).toContain(names[i] === 'chat' ? 'tail --json' : '--json');
      expect(run.stdout).toMatch(/Example:\n {2}\$ agentwire /);
    });
  });

  it('sessions, history, show, tail --from and rename work on a real session', async () => {
    const sid = (await agentwire('new')).stdout.trim();
    const prompted = await agentwire('prompt', sid, 'hello', 'from', 'the', 'cli', '--wait');
    expect(prompted.code).toBe(0);
    const renamed = await agentwire('rename', sid, 'the', 'cli', 'session');
    expect([renamed.code, renamed.stdout]).toEqual([0, 'the cli session\n']);

    // The read side catches up through the persistence worker; a person would look again.
    let listed: { sessions: { id: string; title: string | null }[] } = { sessions: [] };
    for (let i = 0; i < 50; i++) {
      const run = await agentwire('sessions', '--json');
      expect(run.code).toBe(0);
      listed = JSON.parse(run.stdout);
      if (listed.sessions.find((x) => x.id === sid)?.title === 'the cli session') break;
      await sleep(200);
    }
    expect(listed.sessions.find((x) => x.id === sid)).toMatchObject({ title: 'the cli session' });
    const text = await agentwireWith({ NO_COLOR: '1' }, 'sessions', '--limit', '1');
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain('\u001b[');
    expect(text.stdout.split('\n')[0]).toMatch(new RegExp(`^${sid} +\\S+ .*the cli session$`));
    const coloured = await agentwireWith({ FORCE_COLOR: '1' }, 'sessions', '--limit', '1');
    expect(coloured.stdout).toContain('\u001b[1m');

    let history = await agentwire('history', sid);
    for (let i = 0; i < 50 && !history.stdout.includes('hello from the cli'); i++) {
      await sleep(200);
      history = await agentwire('history', sid);
    }
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/^user \S+ .*\n {2}hello from the cli$/m);
    expect(history.stdout).toMatch(/^assistant /m);
    const tip = JSON.parse((await agentwire('show', sid, '--json')).stdout).asOfSeq as number;
    // Exact for a number: `not_caught_up` (exit 1) until the read side has it.
    let exact = await agentwire('history', sid, '--as-of', String(tip));
    for (let i = 0; i < 50 && exact.code !== 0; i++) {
      expect(exact.stderr).toMatch(/\(not_caught_up\)\n$/);
      await sleep(200);
      exact = await agentwire('history', sid, '--as-of', String(tip));
    }
    expect(exact.stdout).toContain(
      `as of #${tip} (follow on: agentwire tail ${sid} --from ${tip + 1})`,
    );
    const page = JSON.parse((await agentwire('history', sid, '--json', '--limit', '1')).stdout);
    expect(page.messages).toHaveLength(1);
    expect(page.older ?? page.newer).toEqual(expect.any(String));

    const show = await agentwireWith({ NO_COLOR: '1' }, 'show', sid);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`session  ${sid}`);
    expect(show.stdout).toMatch(/^title +the cli session \(custom\)$/m);
    expect(show.stdout).toMatch(/^turns +1$/m);
    const shown = JSON.parse((await agentwire('show', sid, '--json')).stdout);
    expect(shown.projection).toMatchObject({ id: sid, title: 'the cli session', turnCount: 1 });

    const all = eventLines(
      (await agentwire('follow', sid, '--until', 'session_title_updated')).stdout,
    );
    const from = all.at(-3)?.seq ?? 1;
    const tail = await agentwire(
      'tail',
      sid,
      '--from',
      String(from),
      '--until',
      'session_title_updated',
    );
    expect(tail.code).toBe(0);
    expect(eventLines(tail.stdout)).toEqual(all.filter((l) => l.seq >= from));
    const json = await agentwire(
      'tail',
      sid,
      '--from',
      String(from),
      '--until',
      'session_title_updated',
      '--json',
    );
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.sequenceNumber)).toEqual(eventLines(tail.stdout).map((l) => l.seq));
  });

  it('queue lists, moves and removes the inputs waiting behind a running turn', async () => {
    const sid = (await agentwire('new')).stdout.trim();
    expect((await agentwire('prompt', sid, '[scenario:run_command] go')).code).toBe(0);
    const asked = await agentwire('follow', sid, '--until', 'permission_requested');
    const requestId = /permission_requested .* request (\S+):/.exec(asked.stdout)?.[1] ?? '';
    const a = JSON.parse((await agentwire('prompt', sid, 'first', 'waiting', '--json')).stdout);
    const b = JSON.parse((await agentwire('prompt', sid, 'second', 'waiting', '--json')).stdout);
    expect([a.delivery, b.delivery]).toEqual(['queue', 'queue']);
    let listed = await agentwire('queue', sid, '--json');
    for (let i = 0; i < 50 && JSON.parse(listed.stdout).inputs.length < 2; i++) {
      await sleep(200);
      listed = await agentwire('queue', sid, '--json');
    }
    const ids = JSON.parse(listed.stdout).inputs.map(
      (x: { pendingInputId: string }) => x.pendingInputId,
    );
    expect(ids).toEqual([a.inputId, b.inputId]);
    const text = await agentwire('queue', sid, 'list');
    expect(text.stdout).toMatch(new RegExp(`^ +1\\. ${a.inputId} +queue +"first waiting"$`, 'm'));
    const moved = await agentwire('queue', sid, 'move', b.inputId, '1');
    expect([moved.code, moved.stdout]).toEqual([0, `  1. ${b.inputId}\n  2. ${a.inputId}\n`]);
    const removed = await agentwire('queue', sid, 'rm', a.inputId);
    expect([removed.code, removed.stdout]).toEqual([0, `removed ${a.inputId}\n`]);
    const again = await agentwire('queue', sid, 'rm', a.inputId);
    expect([again.code, again.stderr]).toEqual([
      1,
      expect.stringMatching(/^agentwire: queue rm: .*\(illegal_transition\)\n$/),
    ]);
    // The lanes' modes (0236): set over the operation, read back from the projection.
    const set = await agentwire('queue', sid, 'modes', 'followup', 'all', 'autodrain', 'off');
    expect([set.code, set.stdout]).toEqual([0, 'steering all  followUp all  auto-drain off\n']);
    let modes = JSON.parse((await agentwire('queue', sid, 'modes', '--json')).stdout);
    for (let i = 0; i < 50 && modes.autoDrain !== false; i++) {
      await sleep(200);
      modes = JSON.parse((await agentwire('queue', sid, 'modes', '--json')).stdout);
    }
    expect(modes).toMatchObject({ steeringMode: 'all', followUpMode: 'all', autoDrain: false });
    const bad = await agentwire('queue', sid, 'modes', 'followup', 'many');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'agentwire: queue modes: followup takes all or one, got "many"\n',
    ]);
    expect((await agentwire('queue', sid, 'modes', 'autodrain', 'on')).code).toBe(0);
    expect((await agentwire('answer', sid, requestId, 'allow')).code).toBe(0);
  });

  it('bad flags, an unknown session and no server each give one line and a non-zero exit', async () => {
    const runs = await Promise.all([
      agentwire('sessions', '--limit', 'lots'),
      agentwire('history', 'x', '--from', 'middle'),
      agentwire('tail', 'x', '--from', '0'),
      agentwire('queue', 'x', 'shuffle'),
      agentwire('sessions', '--colour'),
      agentwire(),
      agentwire('chat'),
      agentwire('show', 'no-such-session'),
      agentwire('history', 'no-such-session'),
      agentwire('tail', 'no-such-session', '--from', '3'),
      agentwire('rename', 'no-such-session', 'a', 'title'),
      agentwire('queue', 'no-such-session'),
      agentwireWith({ NATS_URL: 'nats://127.0.0.1:1', AW_CONNECT_TIMEOUT_MS: '2000' }, 'sessions'),
      agentwireWith({ NATS_URL: 'nats://127.0.0.1:1', AW_CONNECT_TIMEOUT_MS: '2000' }, 'show', 'x'),
    ]);
    expect(runs.map((r) => [r.code, r.stderr])).toEqual([
      [
        2,
        expect.stringMatching(
          /^agentwire: option '--limit <n>' argument 'lots' is invalid\. .*\n$/,
        ),
      ],
      [
        2,
        expect.stringMatching(
          /^agentwire: option '--from <start\|end>' argument 'middle' is invalid\. .*\n$/,
        ),
      ],
      [2, expect.stringMatching(/^agentwire: option '--from <n>' argument '0' is invalid\. .*\n$/)],
      [2, expect.stringMatching(/^agentwire: command-argument value 'shuffle' is invalid .*\n$/)],
      [2, expect.stringMatching(/^agentwire: unknown option '--colour'.*\n$/)],
      [2, 'agentwire: missing command (see agentwire --help)\n'],
      [
        2,
        'agentwire: chat needs a terminal on stdin and stdout (for a script, use prompt and tail --json)\n',
      ],
      [3, expect.stringMatching(/^agentwire: show: .*\(not_found\)\n$/)],
      [3, expect.stringMatching(/^agentwire: history: .*\(not_found\)\n$/)],
      [3, 'agentwire: no session no-such-session\n'],
      [3, expect.stringMatching(/^agentwire: rename: .*\(unknown_session\)\n$/)],
      [3, expect.stringMatching(/^agentwire: queue list: .*\(not_found\)\n$/)],
      [1, 'agentwire: cannot reach NATS at nats://127.0.0.1:1 within 2000 ms\n'],
      [1, 'agentwire: cannot reach NATS at nats://127.0.0.1:1 within 2000 ms\n'],
    ]);
    expect(runs.every((r) => r.stdout === '')).toBe(true);
  });
});
