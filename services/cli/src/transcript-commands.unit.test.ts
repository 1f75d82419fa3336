import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { QueryClient, RuntimeClient, RuntimeResult } from '@agentwire/bus';
import type { ExportReply, OpenReply, SessionCommandReply } from '@agentwire/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { buildProgram } from './program.ts';
import { createStyle } from './style.ts';

const TRANSCRIPT =
  '{"format":"agentwire-transcript","version":1,"sessionId":"s1","title":"T","exportedAt":1}\n' +
  '{"message":{"id":"msg_1"},"parts":[]}\n';

const EXPORTED: ExportReply = { ok: true, sessionId: 's1', messages: 1, transcript: TRANSCRIPT };

const IMPORTED: OpenReply = { ok: true, sessionId: 'ses_new', owner: 'rt1', lastSequence: 0 };

/** What the fake clients answer, each call in turn (the last one again when they run out). */
interface Answers {
  readonly fork?: RuntimeResult<SessionCommandReply>;
  readonly exports?: readonly RuntimeResult<ExportReply>[];
  readonly import?: RuntimeResult<OpenReply>;
}

/** Runs `agentwire <argv>` on fake clients, recording their calls and the output lines. */
async function agentwire(argv: string[], answers: Answers, stdin = '') {
  const calls: unknown[][] = [];
  let connects = 0;
  const exports = [...(answers.exports ?? [])];
  const client = {
    fork: async (...args: unknown[]) => {
      calls.push(['fork', ...args]);
      return answers.fork;
    },
    importSession: async (transcript: string) => {
      calls.push(['importSession', transcript]);
      return answers.import;
    },
  } as unknown as RuntimeClient;
  const query = {
    exportSession: async (sessionId: string) => {
      calls.push(['exportSession', sessionId]);
      return exports.length > 1 ? exports.shift() : exports[0];
    },
  } as unknown as QueryClient;
  const out: string[] = [];
  const program = buildProgram({
    writeOut: () => {},
    readStdin: async () => stdin,
    connect: async ({ json }): Promise<CliContext> => {
      connects += 1;
      return {
        client,
        query,
        out: (l) => out.push(l),
        err: () => {},
        signal: new AbortController().signal,
        json,
        style: createStyle(false),
        progress: (_label, work) => work,
      };
    },
  });
  const error = await program.parseAsync(argv, { from: 'user' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { calls, out, error, connects };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aw-transcript-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentwire fork (docs/decisions/0243)', () => {
  const forked: SessionCommandReply = {
    ok: true,
    sessionId: 's1',
    inputId: 'in_1',
    command: 'fork',
    result: { forkedSessionId: 'ses_f', owner: 'rtA', targetMessageId: 'msg_4', messageCount: 4 },
  };

  it('prints the new session, its size and its owner', async () => {
    const run = await agentwire(['fork', 's1', 'msg_4'], { fork: forked });
    expect(run.error).toBeUndefined();
    expect(run.calls).toEqual([['fork', 's1', 'msg_4']]);
    expect(run.out).toEqual(['forked ses_f: 4 messages up to msg_4 (owner rtA)']);
  });

  it('prints the ticket of a fork queued behind the running turn, and JSON with --json', async () => {
    const queued: SessionCommandReply = {
      ok: true,
      sessionId: 's1',
      inputId: 'in_7',
      delivery: 'queue',
      targetTurnId: 'turn_3',
      queueLength: 1,
    };
    const run = await agentwire(['fork', 's1', 'msg_4'], { fork: queued });
    expect(run.out).toEqual([
      'queued in_7: the session is busy; it runs after turn turn_3 (agentwire queue s1)',
    ]);
    const json = await agentwire(['fork', 's1', 'msg_4', '--json'], { fork: forked });
    expect(json.out.map((l) => JSON.parse(l))).toEqual([forked]);
  });

  it.each([
    ['unknown_message', EXIT.failure],
    ['unknown_session', EXIT.notFound],
    ['turn_in_progress', EXIT.failure],
  ])('fails with the typed error %s', async (code, exitCode) => {
    const run = await agentwire(['fork', 's1', 'msg_x'], {
      fork: { ok: false, error: { code, message: 'refused' } },
    });
    expect(run.error).toBeInstanceOf(CliError);
    expect(run.error).toMatchObject({ code, exitCode, message: `fork: refused (${code})` });
    expect(run.out).toEqual([]);
  });

  it('refuses a bad session id before connecting', async () => {
    const run = await agentwire(['fork', 's.1', 'msg_4'], { fork: forked });
    expect(run.error).toMatchObject({ code: 'usage', exitCode: EXIT.usage });
    expect(run.calls).toEqual([]);
  });
});

describe('agentwire export (docs/decisions/0243)', () => {
  it('prints the transcript file on stdout, line by line', async () => {
    const run = await agentwire(['export', 's1'], { exports: [EXPORTED] });
    expect(run.error).toBeUndefined();
    expect(run.calls).toEqual([['exportSession', 's1']]);
    expect(`${run.out.join('\n')}\n`).toBe(TRANSCRIPT);
  });

  it('writes it to -o <file> and says so; --json says it as JSON', async () => {
    const file = path.join(dir, 'out.jsonl');
    const run = await agentwire(['export', 's1', '-o', file], { exports: [EXPORTED] });
    expect(run.error).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe(TRANSCRIPT);
    const bytes = Buffer.byteLength(TRANSCRIPT);
    expect(run.out).toEqual([`exported 1 message of s1 to ${file} (${bytes} bytes)`]);
    const json = await agentwire(['export', 's1', '--output', file, '--json'], {
      exports: [EXPORTED],
    });
    expect(json.out.map((l) => JSON.parse(l))).toEqual([
      { ok: true, sessionId: 's1', messages: 1, bytes, file },
    ]);
    const whole = await agentwire(['export', 's1', '--json'], { exports: [EXPORTED] });
    expect(whole.out.map((l) => JSON.parse(l))).toEqual([EXPORTED]);
  });

  it('asks again while the store has not caught up with the session', async () => {
    const behind = {
      ok: false as const,
      error: { code: 'not_caught_up', message: 'retry', detail: { retryable: true } },
    };
    const run = await agentwire(['export', 's1'], { exports: [behind, behind, EXPORTED] });
    expect(run.error).toBeUndefined();
    expect(run.calls).toHaveLength(3);
    expect(`${run.out.join('\n')}\n`).toBe(TRANSCRIPT);
  });

  it.each([
    ['not_found', EXIT.notFound],
    ['transcript_too_large', EXIT.failure],
    ['unavailable', EXIT.failure],
  ])('fails with the typed error %s, writing nothing', async (code, exitCode) => {
    const file = path.join(dir, `${code}.jsonl`);
    const run = await agentwire(['export', 's1', '-o', file], {
      exports: [{ ok: false, error: { code, message: 'refused' } }],
    });
    expect(run.error).toMatchObject({ code, exitCode, message: `export: refused (${code})` });
    expect(run.calls).toHaveLength(1);
    await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('fails with one line when the file cannot be written', async () => {
    const file = path.join(dir, 'no-such-dir', 'out.jsonl');
    const run = await agentwire(['export', 's1', '-o', file], { exports: [EXPORTED] });
    expect(run.error).toBeInstanceOf(CliError);
    expect(run.error).toMatchObject({ code: 'cannot_write_file', exitCode: EXIT.failure });
    expect((run.error as Error).message).toMatch(/^export: cannot write .*out\.jsonl: ENOENT/);
  });
});

describe('agentwire import (docs/decisions/0243)', () => {
  it('imports a file and prints the new session id; - reads stdin', async () => {
    const file = path.join(dir, 'in.jsonl');
    await writeFile(file, TRANSCRIPT);
    const run = await agentwire(['import', file], { import: IMPORTED });
    expect(run.error).toBeUndefined();
    expect(run.calls).toEqual([['importSession', TRANSCRIPT]]);
    expect(run.out).toEqual(['ses_new']);
    const piped = await agentwire(['import', '-'], { import: IMPORTED }, TRANSCRIPT);
    expect(piped.calls).toEqual([['importSession', TRANSCRIPT]]);
    expect(piped.out).toEqual(['ses_new']);
    const json = await agentwire(['import', file, '--json'], { import: IMPORTED });
    expect(json.out.map((l) => JSON.parse(l))).toEqual([IMPORTED]);
  });

  it('fails with the runtime error naming the line, exit 1', async () => {
    const file = path.join(dir, 'bad.jsonl');
    await writeFile(file, 'not a transcript\n');
    const run = await agentwire(['import', file], {
      import: {
        ok: false,
        error: { code: 'invalid_transcript', message: 'line 1 is not JSON', detail: { line: 1 } },
      },
    });
    expect(run.error).toMatchObject({
      code: 'invalid_transcript',
      exitCode: EXIT.failure,
      message: 'import: line 1 is not JSON (invalid_transcript)',
    });
    expect(run.out).toEqual([]);
  });

  it('fails on a file it cannot read, before connecting', async () => {
    const run = await agentwire(['import', path.join(dir, 'missing.jsonl')], { import: IMPORTED });
    expect(run.error).toMatchObject({ code: 'cannot_read_file', exitCode: EXIT.usage });
    expect((run.error as Error).message).toMatch(/^import: cannot read .*missing\.jsonl: ENOENT/);
    expect(run.connects).toBe(0);
    expect(run.calls).toEqual([]);
  });
});
