import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { isBaseExpired, isRuntimeFailure } from '@agentwire/bus/outcomes';
import { isCommandPromptReply, type SessionEvent } from '@agentwire/contracts';
import { type CliContext, checkSessionId, failureError } from './cli-context.ts';
import { formatCommandResult } from './format-prompt-reply.ts';

/** Where `agentwire chat` reads keys and writes its screen: a terminal, in practice. */
export interface ChatTerminal {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

interface Asking {
  readonly requestId: string;
  readonly toolName: string;
}

const PROMPT = '> ';

function oneLine(text: string, max: number): string {
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * `agentwire chat [sid]`: an interactive session on a terminal. It opens the session (a new
 * one without `sid`), follows it from its last number, and reads prompt lines: a line
 * starts a turn (or waits in the queue while one runs; slash commands are sent as they are).
 * The reply streams in as it arrives, tool calls show with their result, and a permission
 * request asks `[y/n]`. Ctrl-C interrupts the running turn; a second Ctrl-C (or Ctrl-D)
 * exits. When the follow fails (NATS gone) it says so and resumes after the last number it
 * showed, so nothing is shown twice or lost.
 */
export async function chatCommand(
  ctx: CliContext,
  terminal: ChatTerminal,
  sessionId?: string,
): Promise<void> {
  if (sessionId !== undefined) checkSessionId(sessionId);
  const { client, style } = ctx;
  const opened = await ctx.progress('opening the session', client.open(sessionId));
  if (isRuntimeFailure(opened)) throw failureError('chat', opened);
  const sid = opened.sessionId;
  const out = terminal.output;
  const rl: Interface = createInterface({
    input: terminal.input,
    output: out,
    prompt: PROMPT,
    terminal: true,
  });
  let running = false;
  let midLine = false;
  let exitArmed = false;
  let interruptSent = false;
  const asking: Asking[] = [];
  let closed = false;
  const done = new Promise<void>((resolve) => {
    rl.on('close', () => {
      closed = true;
      resolve();
    });
  });
  // SIGTERM (and SIGINT when not on a raw terminal) ends the chat like Ctrl-D.
  const closeOnAbort = () => rl.close();
  ctx.signal.addEventListener('abort', closeOnAbort, { once: true });

  const write = (text: string) => out.write(text);
  /** Prints whole lines above the prompt line, then shows the prompt again. */
  const say = (line: string) => {
    if (midLine) write('\n');
    midLine = false;
    clearLine(out, 0);
    cursorTo(out, 0);
    write(`${line}\n`);
    if (!running || asking.length > 0) rl.prompt(true);
  };
  const ask = () => {
    const next = asking[0];
    rl.setPrompt(next === undefined ? PROMPT : style.yellow(`allow ${next.toolName}? [y/n] `));
    rl.prompt(true);
  };

  say(
    style.dim(
      `session ${sid} (#${opened.lastSequence}). Type a prompt; Ctrl-C interrupts a turn, twice exits.`,
    ),
  );

  const show = (event: SessionEvent) => {
    switch (event.type) {
      case 'turn_started':
        running = true;
        interruptSent = false;
        clearLine(out, 0);
        cursorTo(out, 0);
        return;
      case 'model_streaming': {
        if (!running || event.payload.delta === '') return;
        const kind = event.payload.kind;
        if (kind !== undefined && kind !== 'text_delta' && kind !== 'reasoning_delta') return;
        write(kind === 'reasoning_delta' ? style.dim(event.payload.delta) : event.payload.delta);
        midLine = true;
        return;
      }
      case 'tool_call_scheduled':
        say(
          style.cyan(
            `⚙ ${event.payload.toolName} ${oneLine(JSON.stringify(event.payload.input), 100)}`,
          ),
        );
        return;
      case 'tool_call_result': {
        const { success, content } = event.payload.result;
        const mark = success ? style.green('  ✓ ok') : style.red('  ✗ failed');
        say(`${mark} ${style.dim(oneLine(content, 100))}`);
        return;
      }
      case 'tool_call_error':
        say(style.red(`  ✗ ${event.payload.error.message}`));
        return;
      case 'permission_requested': {
        const { requestId, toolName, riskLevel, reason } = event.payload;
        if (requestId === undefined) return;
        asking.push({ requestId, toolName });
        say(style.yellow(`? ${toolName} (${riskLevel}) asks: ${oneLine(reason, 120)}`));
        ask();
        return;
      }
      case 'permission_resolved':
      case 'permission_denied': {
        const at = asking.findIndex((a) => a.requestId === event.payload.requestId);
        if (at >= 0) asking.splice(at, 1);
        const what = event.type === 'permission_resolved' ? event.payload.decision : 'denied';
        say(
          style.dim(
            `  permission ${what}${event.payload.reason ? `: ${event.payload.reason}` : ''}`,
          ),
        );
        ask();
        return;
      }
      case 'turn_steer_queued':
        if (running) say(style.dim(`queued: ${oneLine(event.payload.inputPreview, 80)}`));
        return;
      case 'session_title_updated':
        say(style.dim(`title: ${event.payload.title}`));
        return;
      case 'turn_complete':
        running = false;
        say(
          event.payload.resultType === 'success'
            ? style.dim(`(${event.payload.resultType})`)
            : style.yellow(`(${event.payload.resultType})`),
        );
        return;
      case 'turn_error':
        running = false;
        say(style.red(`turn failed: ${event.payload.error.message}`));
        return;
      default:
        return;
    }
  };

  rl.on('line', (line) => {
    exitArmed = false;
    const text = line.trim();
    const question = asking[0];
    if (question !== undefined) {
      const answer = text.toLowerCase();
      if (!['y', 'yes', 'n', 'no'].includes(answer)) {
        ask();
        return;
      }
      const decision = answer.startsWith('y') ? 'allow' : 'deny';
      void client
        .answerPermission(sid, {
          requestId: question.requestId,
          decision,
          reason: 'agentwire chat',
        })
        .then((reply) => {
          if (isRuntimeFailure(reply)) say(style.red(`answer: ${reply.error.message}`));
        });
      return;
    }
    if (text === '') {
      if (!running) rl.prompt();
      return;
    }
    void client.prompt(sid, { text }).then((reply) => {
      if (isRuntimeFailure(reply))
        say(style.red(`prompt: ${reply.error.message} (${reply.error.code})`));
      else if (isCommandPromptReply(reply)) say(formatCommandResult(reply.command, reply.result));
    });
  });

  rl.on('SIGINT', () => {
    if (running && !interruptSent) {
      interruptSent = true;
      exitArmed = true;
      say(style.yellow('^C interrupting the turn (Ctrl-C again to exit)'));
      void client.interrupt(sid).then((reply) => {
        if (isRuntimeFailure(reply) && reply.error.code !== 'no_active_turn') {
          say(style.red(`interrupt: ${reply.error.message}`));
        }
      });
      return;
    }
    if (exitArmed) {
      rl.close();
      return;
    }
    exitArmed = true;
    say(style.dim('(Ctrl-C again to exit)'));
  });

  let last = opened.lastSequence;
  const following = (async () => {
    while (!closed) {
      const follower = client.follow(sid, last);
      const stop = () => void follower.stop();
      rl.once('close', stop);
      try {
        for await (const event of follower) {
          last = event.sequenceNumber;
          show(event);
        }
      } catch (error) {
        if (closed) break;
        if (isBaseExpired(error)) {
          last = error.expiredBase.firstAvailableSequence - 1;
          continue;
        }
        say(style.yellow(`reconnecting (${(error as Error).message}); resuming after #${last}`));
        await sleep(1000);
      } finally {
        rl.off('close', stop);
        await follower.stop();
      }
    }
  })();
  await done;
  ctx.signal.removeEventListener('abort', closeOnAbort);
  write('\n');
  await following;
}
