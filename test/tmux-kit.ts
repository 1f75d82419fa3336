import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The CLI's entry point. */
const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../services/cli/src/main.ts',
);

/** `agentwire chat` (or another command) in a tmux pane of its own tmux server, read and typed as a person does. */
export interface ChatPane {
  /** The pane's text (colours off: NO_COLOR). */
  screen(): Promise<string>;
  /** Waits until the screen matches `pattern` (or passes it); fails naming `what` with the screen. */
  waitFor(pattern: RegExp | ((screen: string) => boolean), what: string): Promise<string>;
  /** Types `text` and Enter. */
  type(text: string): Promise<void>;
  /** Sends one key (`C-c`). */
  key(name: string): Promise<void>;
  /** Ends the tmux server it started (its own socket: no other tmux is touched). */
  dispose(): Promise<void>;
}

/**
 * Starts `agentwire <args>` (`chat` by default) against `natsUrl` and `prefix` in a 200x50
 * pane of a tmux server on its own socket. After it exits the pane prints `EXITED:<code>`
 * and stays.
 */
export async function startChatPane(
  name: string,
  natsUrl: string,
  prefix: string,
  args: readonly string[] = ['chat'],
): Promise<ChatPane> {
  const socket = `aw-${name}-${process.pid}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
  const command = [
    'env',
    `NATS_URL=${natsUrl}`,
    `AW_PREFIX=${prefix}`,
    'NO_COLOR=1',
    process.execPath,
    CLI,
    ...args.map((a) => `'${a.replaceAll("'", "'\\''")}'`),
    ';',
    'echo',
    'EXITED:$?',
    ';',
    'sleep',
    '600',
  ].join(' ');
  await tmux('new-session', '-d', '-s', name, '-x', '200', '-y', '50', command);
  const screen = async () =>
    (await tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', name)).stdout;
  return {
    screen,
    async waitFor(pattern, what) {
      let text = '';
      for (let i = 0; i < 150; i++) {
        text = await screen();
        if (typeof pattern === 'function' ? pattern(text) : pattern.test(text)) return text;
        await sleep(200);
      }
      throw new Error(`waited for ${what}; the screen:\n${text}`);
    },
    async type(text) {
      await tmux('send-keys', '-t', name, '-l', text);
      await tmux('send-keys', '-t', name, 'Enter');
    },
    async key(key) {
      await tmux('send-keys', '-t', name, key);
    },
    async dispose() {
      await tmux('kill-server').catch(() => undefined);
    },
  };
}
