import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../services/gateway/src/testing/start-stack.ts';

/**
 * Submissions normalised by the owning runtime (issue 11 item 1, R12.1, R7.3), tried through
 * the gateway against the real processes: slash commands run directly, workspace prompt
 * templates, `@file` references as file parts, and what each bad one gets.
 */
let env: TestEnvironment;
let stack: Stack;
let base: string;

interface Json {
  [k: string]: unknown;
}

async function call(method: string, route: string, body?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

const prompt = (sid: string, text: string, wait = false) =>
  call('POST', `/sessions/${sid}/prompt`, { text, ...(wait ? { wait: true } : {}) });

interface HistoryPage {
  messages: {
    message: { role: string };
    parts: { type: string; text?: string; url?: string; filename?: string }[];
  }[];
  asOfSeq: number;
}

/** The session's user messages with their parts, once the store holds `count` of them. */
async function userMessages(sid: string, count: number): Promise<HistoryPage['messages']> {
  let users: HistoryPage['messages'] = [];
  await waitUntil(
    async () => {
      const reply = await call('GET', `/sessions/${sid}/history?from=start&limit=100`);
      if (reply.status !== 200) return false;
      users = (reply.json as unknown as HistoryPage).messages.filter(
        (m) => m.message.role === 'user',
      );
      return users.length >= count;
    },
    { what: `${count} user messages of ${sid}` },
  );
  return users;
}

const decoded = (url: string | undefined) =>
  Buffer.from((url ?? '').replace(/^data:[^,]*;base64,/, ''), 'base64').toString('utf8');

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env, { gateway: true });
  base = stack.gatewayUrl ?? '';
  const prompts = path.join(stack.workspace, '.agentwire', 'prompts');
  await mkdir(prompts, { recursive: true });
  await writeFile(
    path.join(prompts, 'review.md'),
    '---\ndescription: Review code\n---\nReview $ARGUMENTS carefully.',
  );
  await mkdir(path.join(stack.workspace, 'src'));
  await writeFile(path.join(stack.workspace, 'src', 'app.ts'), 'export const port = 8080;\n');
  await symlink('/etc/hostname', path.join(stack.workspace, 'leak'));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
});

describe('submissions are normalised by the runtime (R12.1)', () => {
  it('runs /help, /status and /rename directly, with the workspace templates listed', async () => {
    const sid = String((await call('POST', '/sessions')).json.sessionId);
    const help = await prompt(sid, '/help');
    expect(help.status, JSON.stringify(help.json)).toBe(200);
    expect(help.json.command).toBe('help');
    const commands = (help.json.result as { commands: { name: string; kind: string }[] }).commands;
    expect(commands.map((c) => `${c.name}:${c.kind}`)).toEqual([
      'compact:session',
      'fork:session',
      'goal:direct',
      'help:direct',
      'mode:direct',
      'model:direct',
      'queue-mode:direct',
      'rename:direct',
      'review:template',
      'rewind:session',
      'status:direct',
      'tree:session',
    ]);
    const renamed = await prompt(sid, '/rename Port audit');
    expect(renamed.json).toMatchObject({ command: 'rename', result: { title: 'Port audit' } });
    const status = await prompt(sid, '/status');
    expect(status.json.result).toMatchObject({
      title: 'Port audit',
      titleSource: 'custom',
      turnCount: 0,
      activeTurnId: null,
    });
    await waitUntil(
      async () => {
        const p = await call('GET', `/sessions/${sid}/projection`);
        return (p.json.projection as Json | undefined)?.title === 'Port audit';
      },
      { what: 'the rename in the projection' },
    );
  });

  it('expands a template and carries @file references as file parts of the user message', async () => {
    const sid = String((await call('POST', '/sessions')).json.sessionId);
    const templated = await prompt(sid, '/review the config loader', true);
    expect(templated.status, JSON.stringify(templated.json)).toBe(200);
    expect(templated.json.status).toBe('complete');
    const withFile = await prompt(sid, 'which port does @src/app.ts use?', true);
    expect(withFile.json.status).toBe('complete');
    const [first, second] = await userMessages(sid, 2);
    expect(first?.parts.map((p) => [p.type, p.text])).toEqual([
      ['text', 'Review the config loader carefully.'],
    ]);
    const file = second?.parts.find((p) => p.type === 'file');
    expect(second?.parts.find((p) => p.type === 'text')?.text).toBe(
      'which port does @src/app.ts use?',
    );
    expect(file?.filename).toBe('src/app.ts');
    expect(decoded(file?.url)).toBe('export const port = 8080;\n');
  });

  it('refuses bad submissions with a typed 400 naming what was wrong, and admits nothing', async () => {
    const sid = String((await call('POST', '/sessions')).json.sessionId);
    await prompt(sid, 'a first turn', true);
    const before = await userMessages(sid, 1);
    const cases: [string, string, Json][] = [
      ['/deploy now', 'unknown_command', { command: 'deploy' }],
      ['/rename', 'invalid_command', { command: 'rename' }],
      ['read @../../etc/passwd', 'invalid_file_reference', { reason: 'outside_workspace' }],
      ['read @leak', 'invalid_file_reference', { reference: '@leak', reason: 'outside_workspace' }],
      ['read @missing/file.ts', 'invalid_file_reference', { reason: 'not_found' }],
      ['read @src', 'invalid_file_reference', { reason: 'not_a_file' }],
      ['read @"never closed', 'invalid_file_reference', { reason: 'malformed' }],
    ];
    for (const [text, code, detail] of cases) {
      const reply = await prompt(sid, text);
      expect(reply.status, text).toBe(400);
      const error = reply.json.error as { code: string; message: string; detail: Json };
      expect(error.code, text).toBe(code);
      expect(error.detail, text).toMatchObject(detail);
    }
    const unknown = await prompt(sid, '/deploy');
    expect((unknown.json.error as { detail: Json }).detail.known).toEqual([
      'compact',
      'fork',
      'goal',
      'help',
      'mode',
      'model',
      'queue-mode',
      'rename',
      'review',
      'rewind',
      'status',
      'tree',
    ]);
    const status = await prompt(sid, '/status');
    expect(status.json.result).toMatchObject({ turnCount: 1, pendingInputIds: [] });
    expect(await userMessages(sid, 1)).toEqual(before);
  });
});
