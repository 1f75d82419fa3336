import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Stack, startStack } from '@agentwire/gateway/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../services/cli/src/main.ts',
);
/** Our own tmux server (its own socket): the test never touches another tmux. */
const SOCKET = `aw-chat-${process.pid}`;
const PANE = 'chat';

let env: TestEnvironment;
let stack: Stack;

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env);
});

afterAll(async () => {
  await run('tmux', ['-L', SOCKET, 'kill-server']).catch(() => undefined);
  await stack?.stop();
  await env?.dispose();
});

const tmux = (...args: string[]) => run('tmux', ['-L', SOCKET, ...args]);

/** The pane's text as a person sees it (colours off: NO_COLOR). */
async function screen(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', PANE)).stdout;
}

/** Waits until the screen matches `pattern`; fails naming what it waited for and the screen. */
async function waitFor(pattern: RegExp, what: string): Promise<string> {
  let text = '';
  for (let i = 0; i < 150; i++) {
    text = await screen();
    if (pattern.test(text)) return text;
    await sleep(200);
  }
  throw new Error(`waited for ${what}; the screen:\n${text}`);
}

const type = async (text: string) => {
  await tmux('send-keys', '-t', PANE, '-l', text);
  await tmux('send-keys', '-t', PANE, 'Enter');
};

describe('agentwire chat on a pseudo-terminal (tmux) against the real stack', () => {
  it('prompts, streams, shows tools, answers y, interrupts with Ctrl-C and exits on a second', async () => {
    const command = [
      'env',
      `NATS_URL=${env.natsUrl}`,
      `AW_PREFIX=${env.prefix}`,
      'NO_COLOR=1',
      process.execPath,
      CLI,
      'chat',
      ';',
      'echo',
      'EXITED:$?',
      ';',
      'sleep',
      '600',
    ].join(' ');
    await tmux('new-session', '-d', '-s', PANE, '-x', '200', '-y', '50', command);
    await waitFor(/session \S+ \(#\d+\)\. Type a prompt/, 'the greeting');
    await waitFor(/^> $/m, 'the prompt line');

    await type('[scenario:two_tools] read the README and write a note');
    await waitFor(/⚙ read_file \{"path":"README\.md"\}/, 'the read_file call');
    await waitFor(/allow write_file\? \[y\/n\]/, 'the permission question');
    const asked = await screen();
    expect(asked).toMatch(/Let me look at the workspace\./);
    expect(asked).toMatch(/✓ ok/);
    await type('y');
    const answered = await waitFor(/\(success\)/, 'the end of the turn');
    expect(answered).toMatch(/permission allow: agentwire chat/);
    expect(answered).toMatch(/Done: read README\.md and wrote notes\.txt\./);

    await type('[scenario:held_stream] think');
    await waitFor(/Thinking it over/, 'the held stream');
    await tmux('send-keys', '-t', PANE, 'C-c');
    await waitFor(/\^C interrupting the turn/, 'the interrupt notice');
    await waitFor(/\(cancelled\)/, 'the cancelled turn');
    await tmux('send-keys', '-t', PANE, 'C-c');
    const exited = await waitFor(/EXITED:\d+/, 'the exit');
    expect(exited).toMatch(/EXITED:0/);
  });
});
