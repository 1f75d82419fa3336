import { spawn } from 'node:child_process';
import path from 'node:path';
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
  stack = await startStack(env);
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
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NATS_URL: env.natsUrl, AW_PREFIX: env.prefix },
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
      [2, expect.stringMatching(/^agentwire: --after must be a non-negative integer/)],
      [2, 'agentwire: unknown command "explode"'],
    ]);
    expect(runs.every((r) => r.stdout === '')).toBe(true);
  });
});
