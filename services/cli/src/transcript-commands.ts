import { readFile, writeFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import type { ExportReply } from '@agentwire/contracts';
import type { Command } from 'commander';
import { type CliContext, checkSessionId, failureError, print } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import type { CommandKit } from './command-kit.ts';
import { formatFork } from './format-tree.ts';
import { treeEntryId } from './tree-command.ts';

/**
 * How long `export` asks again while the store still commits the session's writes
 * (`not_caught_up`, which a session answers right after a turn), and how often.
 */
const EXPORT_CATCH_UP_MS = 15_000;
const EXPORT_RETRY_MS = 200;

/** An import writes the whole file, in confirmed chunks, before it answers. */
const IMPORT_TIMEOUT_MS = 120_000;

/** Where `import -` reads from. */
export interface TranscriptIo {
  /** The text on stdin (default: `process.stdin` to its end). */
  readonly readStdin?: (() => Promise<string>) | undefined;
}

/** `agentwire fork <sid> <messageId>`: the new session, or the fork's ticket while busy. */
async function forkCommand(ctx: CliContext, sid: string, messageId: string): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.client.fork(sid, messageId);
  if (isRuntimeFailure(reply)) throw failureError('fork', reply);
  print(ctx, reply, formatFork(reply, ctx.style));
}

/** The session's export, asked again while the store has not caught up, up to a deadline. */
async function exportWhenCaughtUp(ctx: CliContext, sid: string): Promise<ExportReply> {
  const deadline = Date.now() + EXPORT_CATCH_UP_MS;
  for (;;) {
    const reply = await ctx.query.exportSession(sid);
    if (!isRuntimeFailure(reply)) return reply;
    const again =
      reply.error.code === 'not_caught_up' && Date.now() < deadline && !ctx.signal.aborted;
    if (!again) throw failureError('export', reply);
    await sleep(EXPORT_RETRY_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
}

/** `agentwire export <sid> [-o file]`: the transcript file, on stdout or into `output`. */
async function exportCommand(ctx: CliContext, sid: string, output?: string): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.progress('exporting', exportWhenCaughtUp(ctx, sid));
  if (output === undefined || output === '-') {
    // The file's own lines, each ending in a newline as `out` ends them.
    ctx.out(ctx.json ? JSON.stringify(reply) : reply.transcript.replace(/\n$/, ''));
    return;
  }
  try {
    await writeFile(output, reply.transcript);
  } catch (error) {
    throw new CliError(
      'cannot_write_file',
      `export: cannot write ${output}: ${(error as Error).message}`,
      EXIT.failure,
      { cause: error },
    );
  }
  const bytes = Buffer.byteLength(reply.transcript, 'utf8');
  const done = { ok: true, sessionId: sid, messages: reply.messages, bytes, file: output };
  const messages = `${reply.messages} message${reply.messages === 1 ? '' : 's'}`;
  print(ctx, done, [`exported ${messages} of ${sid} to ${output} (${bytes} bytes)`]);
}

/** The file an import reads (`-`: stdin), read before anything connects. */
async function readTranscriptFile(file: string, io: TranscriptIo): Promise<string> {
  try {
    if (file !== '-') return await readFile(file, 'utf8');
    return await (io.readStdin ?? (() => text(process.stdin)))();
  } catch (error) {
    throw new CliError(
      'cannot_read_file',
      `import: cannot read ${file === '-' ? 'stdin' : file}: ${(error as Error).message}`,
      EXIT.usage,
      { cause: error },
    );
  }
}

/** `agentwire import <file>`: the new session's id. */
async function importCommand(ctx: CliContext, transcript: string): Promise<void> {
  const sent = ctx.client.importSession(transcript, { timeoutMs: IMPORT_TIMEOUT_MS });
  const reply = await ctx.progress('importing', sent);
  if (isRuntimeFailure(reply)) throw failureError('import', reply);
  print(ctx, reply, [reply.sessionId]);
}

/**
 * `agentwire fork`, `export` and `import` (docs/decisions/0240, 0241, 0243): a new session
 * from a message of this one, the session as a transcript file, and a file as a new session.
 */
export function registerTranscriptCommands({ command, run }: CommandKit, io: TranscriptIo): void {
  command(
    'fork <sid>',
    'copy the conversation up to a message into a new session, which goes on by itself',
    'agentwire fork ses_123 msg_42',
  )
    .argument(
      '<messageId>',
      'the last message the new session holds, of any branch (agentwire tree, history)',
      treeEntryId,
    )
    .addHelpText(
      'after',
      '\nThe original session stays as it is. While a turn runs the fork waits in the queue and runs when it ends.',
    )
    .action(
      run(async (ctx, sid: string, messageId: string) => {
        await forkCommand(ctx, sid, messageId);
      }),
    );

  command(
    'export <sid>',
    'write the session as a transcript file (JSON Lines, every branch) to stdout or a file',
    'agentwire export ses_123 -o ses_123.jsonl',
  )
    .option('-o, --output <file>', 'write it to this file instead of stdout')
    .addHelpText(
      'after',
      '  $ agentwire export ses_123 > ses_123.jsonl\n\nagentwire import reads it back as a new session.',
    )
    .action(
      run(async (ctx, sid: string, opts: { output?: string }) => {
        await exportCommand(ctx, sid, opts.output);
      }),
    );

  command(
    'import <file>',
    'import a transcript file (an export) as a new session and print its id',
    'agentwire import ses_123.jsonl',
  )
    .addHelpText(
      'after',
      '  $ agentwire export ses_123 | agentwire import -   # "-" reads stdin\n\nEvery id gets the new session\'s suffix. A file that is not a transcript is refused, naming its line, and nothing is written.',
    )
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const transcript = await readTranscriptFile(file, io);
      await run(async (ctx) => {
        await importCommand(ctx, transcript);
      })(cmd);
    });
}
