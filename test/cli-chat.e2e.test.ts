import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Stack, startStack } from '@agentwire/gateway/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatPane, startChatPane } from './tmux-kit.ts';

let env: TestEnvironment;
let stack: Stack;
let pane: ChatPane | undefined;
let progressPane: ChatPane | undefined;

const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../services/cli/src/main.ts',
);
const agentwire = (...args: string[]) =>
  promisify(execFile)(process.execPath, [CLI, ...args], {
    env: { ...process.env, NATS_URL: env.natsUrl, AW_PREFIX: env.prefix },
  });

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env);
});

afterAll(async () => {
  await pane?.dispose();
  await progressPane?.dispose();
  await stack?.stop();
  await env?.dispose();
});

describe('agentwire chat on a pseudo-terminal (tmux) against the real stack', () => {
  it('prompts, streams, shows tools, answers y, interrupts with Ctrl-C and exits on a second', async () => {
    pane = await startChatPane('chat', env.natsUrl, env.prefix);
    await pane.waitFor(/session \S+ \(#\d+\)\. Type a prompt/, 'the greeting');
    await pane.waitFor(/^> $/m, 'the prompt line');

    await pane.type('[scenario:two_tools] read the README and write a note');
    await pane.waitFor(/⚙ read_file \{"path":"README\.md"\}/, 'the read_file call');
    await pane.waitFor(/allow write_file\? \[y\/n\]/, 'the permission question');
    const asked = await pane.screen();
    expect(asked).toMatch(/Let me look at the workspace\./);
    expect(asked).toMatch(/✓ ok/);
    await pane.type('y');
    const answered = await pane.waitFor(/\(success\)/, 'the end of the turn');
    expect(answered).toMatch(/permission allow: agentwire chat/);
    expect(answered).toMatch(/Done: read README\.md and wrote notes\.txt\./);

    await pane.type('[scenario:held_stream] think');
    await pane.waitFor(/Thinking it over/, 'the held stream');
    await pane.key('C-c');
    await pane.waitFor(/\^C interrupting the turn/, 'the interrupt notice');
    await pane.waitFor(/\(cancelled\)/, 'the cancelled turn');
    await pane.key('C-c');
    const exited = await pane.waitFor(/EXITED:\d+/, 'the exit');
    expect(exited).toMatch(/EXITED:0/);
  });

  it('prompt --wait draws a progress line on a terminal, and none when piped', async () => {
    const sid = (await agentwire('new')).stdout.trim();
    progressPane = await startChatPane('progress', env.natsUrl, env.prefix, [
      'prompt',
      sid,
      '[scenario:slow_text] take your time',
      '--wait',
    ]);
    await progressPane.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the turn \d+s/, 'the progress line');
    const done = await progressPane.waitFor(/EXITED:\d+/, 'the exit');
    expect(done).toMatch(/ complete word0 word1 .* word39\nEXITED:0/);
    expect(done).not.toMatch(/waiting for the turn/);
    const piped = await agentwire('prompt', sid, '[scenario:streamed_text] hi', '--wait');
    expect(piped.stdout).toMatch(/^\S+ complete Hello from the scripted model\.\n$/);
  });
});
