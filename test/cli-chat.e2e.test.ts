import { type Stack, startStack } from '@agentwire/gateway/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatPane, startChatPane } from './tmux-kit.ts';

let env: TestEnvironment;
let stack: Stack;
let pane: ChatPane | undefined;

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env);
});

afterAll(async () => {
  await pane?.dispose();
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
});
