import { type Stack, startStack } from '@agentwire/gateway/testing';
import {
  createTestEnvironment,
  type NatsServerProcess,
  startNatsServer,
  type TestEnvironment,
} from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatPane, startChatPane } from './tmux-kit.ts';

let nats: NatsServerProcess;
let env: TestEnvironment;
let stack: Stack;
let pane: ChatPane | undefined;

beforeAll(async () => {
  nats = await startNatsServer();
  env = await createTestEnvironment();
  stack = await startStack({ natsUrl: nats.url, databaseUrl: env.databaseUrl, prefix: env.prefix });
});

afterAll(async () => {
  await pane?.dispose();
  await stack?.stop();
  await env?.dispose();
  await nats?.dispose();
});

describe('agentwire chat reconnects by itself', () => {
  it('goes on after its broker restarts: the next prompt streams its reply, no line twice', async () => {
    pane = await startChatPane('chat-reconnect', nats.url, env.prefix);
    await pane.waitFor(/^> $/m, 'the prompt line');
    await pane.type('[scenario:streamed_text] hello');
    await pane.waitFor(/Hello from the scripted model\.\n\(success\)/, 'the first reply');

    await nats.restart();

    // The runtime and the chat find the broker again by themselves; a person types the
    // prompt again when the runtime could not take it yet (the chat says so on a line).
    const count = (text: string, re: RegExp) => (text.match(re) ?? []).length;
    let answered = false;
    for (let attempt = 0; attempt < 20 && !answered; attempt++) {
      const before = await pane.screen();
      const done = count(before, /^\(success\)$/gm);
      const refused = count(before, /^prompt: /gm);
      await pane.type('[scenario:streamed_text] again');
      const after = await pane.waitFor(
        (s) => count(s, /^\(success\)$/gm) > done || count(s, /^prompt: /gm) > refused,
        'a reply or a refusal',
      );
      answered = count(after, /^\(success\)$/gm) > done;
    }
    expect(answered).toBe(true);
    // Each turn's reply is shown once: a resumed follow prints nothing twice.
    const screen = await pane.screen();
    expect(count(screen, /Hello from the scripted model\./g)).toBe(
      count(screen, /^\(success\)$/gm),
    );
    await pane.key('C-c');
    await pane.key('C-c');
    expect(await pane.waitFor(/EXITED:\d+/, 'the exit')).toMatch(/EXITED:0/);
  });
});
