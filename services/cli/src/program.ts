import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import { type SetModeRequest, TICKET_WAIT_MAX_MS } from '@agentwire/contracts';
import { Argument, Command, Option } from 'commander';
import { type ChatTerminal, chatCommand } from './chat-command.ts';
import { type CliContext, checkSessionId, failureError, print } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { commandKit, integer } from './command-kit.ts';
import { demoCommand } from './demo-command.ts';
import { followCommand } from './follow-command.ts';
import { formatPromptReply } from './format-prompt-reply.ts';
import { registerQueueCommand } from './queue-command.ts';
import { registerReadCommands } from './read-commands.ts';
import { readProjection } from './read-projection.ts';
import { registerTranscriptCommands } from './transcript-commands.ts';
import { registerTreeCommands } from './tree-command.ts';

/** What the program needs from its process. */
export interface ProgramDeps {
  /**
   * Connects to NATS and gives a command its context; called only when a command runs, so
   * `--help` and usage errors never touch the network.
   */
  readonly connect: (options: { readonly json: boolean }) => Promise<CliContext>;
  /** Help text and other commander output for stdout. */
  readonly writeOut: (text: string) => void;
  /** The terminal `chat` runs on; absent when stdin or stdout is not a terminal. */
  readonly terminal?: ChatTerminal;
  /** The text on stdin, for `import -` (default: read `process.stdin` to its end). */
  readonly readStdin?: () => Promise<string>;
}

const ENVIRONMENT = `
Environment:
  NATS_URL          the NATS server (default nats://127.0.0.1:4222)
  AW_PREFIX         the subject prefix (default aw)
  AW_CONNECT_TIMEOUT_MS  how long to try to reach NATS (default 5000)
  NO_COLOR          set to turn colours off (FORCE_COLOR=1 forces them on)

Exit codes: 0 ok, 1 failure (runtime error, timeout, no server), 2 bad usage,
3 unknown session, permission request or queued input.`;

/**
 * The `agentwire` command line on commander: one subcommand per operation, each with
 * `--json`, `--help` and an example. Parsing never connects; an action connects through
 * `deps.connect`. Usage errors surface as commander errors (`exitOverride`); failures of
 * commands as {@link CliError}.
 */
export function buildProgram(deps: ProgramDeps): Command {
  const program = new Command('agentwire')
    .description(
      'The terminal frontend of agentwire: open, prompt, follow and inspect agent sessions over NATS.',
    )
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: false })
    .addHelpText('after', ENVIRONMENT);
  const kit = commandKit(program, deps.connect);
  const { command, run } = kit;

  program
    .command('chat [sid]')
    .description(
      'talk to a session on this terminal: streamed replies, tool calls, y/n on permissions (for JSON, use tail --json)',
    )
    .addHelpText(
      'after',
      '\nCtrl-C interrupts the running turn, a second Ctrl-C (or Ctrl-D) exits; a lost connection is resumed by itself.\n\nExample:\n  $ agentwire chat            # a new session\n  $ agentwire chat ses_123',
    )
    .action(async (sid: string | undefined) => {
      if (deps.terminal === undefined) {
        throw new CliError(
          'usage',
          'chat needs a terminal on stdin and stdout (for a script, use prompt and tail --json)',
          EXIT.usage,
        );
      }
      if (sid !== undefined) checkSessionId(sid);
      const ctx = await deps.connect({ json: false });
      await chatCommand(ctx, deps.terminal, sid);
    });

  command('new', 'open a new session and print its id', 'agentwire new').action(
    run(async (ctx) => {
      const opened = await ctx.client.open();
      if (isRuntimeFailure(opened)) throw failureError('open', opened);
      print(ctx, opened, [opened.sessionId]);
    }),
  );

  command(
    'prompt <sid> <text...>',
    'send a prompt: it starts a turn, or waits in the queue while one runs',
    'agentwire prompt ses_123 "explain the build" --wait',
  )
    .addOption(
      new Option(
        '--wait [until]',
        'wait until the input is delivered (its message committed) or completed (its turn ended, the default)',
      ).choices(['delivered', 'completed']),
    )
    .addOption(
      new Option(
        '--delivery <how>',
        'while a turn runs: queue it, or guide the running turn',
      ).choices(['queue', 'guide']),
    )
    .addOption(
      new Option(
        '--lane <lane>',
        'the same choice by its lane: followUp (= queue) or steering (= guide)',
      ).choices(['followUp', 'steering']),
    )
    .action(
      run(
        async (
          ctx,
          sid: string,
          words: string[],
          opts: {
            wait?: true | 'delivered' | 'completed';
            delivery?: 'queue' | 'guide';
            lane?: 'steering' | 'followUp';
          },
        ) => {
          checkSessionId(sid);
          // A bare --wait keeps the reply open until the turn ended; --wait <until> takes
          // the submission's ticket and waits on it (R12.4).
          const wait = opts.wait === true;
          const request = {
            text: words.join(' '),
            wait,
            ...(opts.delivery === undefined ? {} : { delivery: opts.delivery }),
            ...(opts.lane === undefined ? {} : { lane: opts.lane }),
          };
          const sent = ctx.client.prompt(sid, request, wait ? { timeoutMs: 600_000 } : {});
          const reply = wait ? await ctx.progress('waiting for the turn', sent) : await sent;
          if (isRuntimeFailure(reply)) throw failureError('prompt', reply);
          const until = opts.wait === true ? undefined : opts.wait;
          const ticketId = 'inputId' in reply ? reply.inputId : undefined;
          if (until === undefined || ticketId === undefined || 'command' in reply) {
            print(ctx, reply, [formatPromptReply(reply, wait)]);
            return;
          }
          const waited = ctx.client.awaitTicket(sid, ticketId, until, TICKET_WAIT_MAX_MS);
          const ticket = await ctx.progress(`waiting until ${until}`, waited);
          if (isRuntimeFailure(ticket)) throw failureError('prompt', ticket);
          print(ctx, ticket, [
            [
              ticket.ticketId,
              ticket.state,
              ticket.turnId ?? '',
              ticket.status ?? ticket.reason ?? '',
            ]
              .filter(Boolean)
              .join(' '),
          ]);
        },
      ),
    );

  command(
    'follow <sid>',
    'print events live after a number: sequence, type, summary (Ctrl-C ends it)',
    'agentwire follow ses_123 --after 12 --until turn_complete',
  )
    .option(
      '--after <n>',
      'the last number already seen (default 0: from the start)',
      integer(0),
      0,
    )
    .option('--until <type>', 'stop after the first event of this type')
    .action(
      run(async (ctx, sid: string, opts: { after: number; until?: string }) => {
        await followCommand(ctx, {
          sessionId: sid,
          after: opts.after,
          ...(opts.until === undefined ? {} : { until: opts.until }),
        });
      }),
    );

  command(
    'tail <sid>',
    'print events live starting at a number (history first, then follow on)',
    'agentwire tail ses_123 --from 40',
  )
    .option('--from <n>', 'the first number to print (default 1)', integer(1), 1)
    .option('--until <type>', 'stop after the first event of this type')
    .action(
      run(async (ctx, sid: string, opts: { from: number; until?: string }) => {
        await followCommand(ctx, {
          sessionId: sid,
          after: opts.from - 1,
          ...(opts.until === undefined ? {} : { until: opts.until }),
        });
      }),
    );

  registerReadCommands(kit);

  command(
    'answer <sid> <requestId>',
    'answer a permission request',
    'agentwire answer ses_123 perm_9 allow --reason "looks safe"',
  )
    .addArgument(new Argument('<decision>', 'allow or deny').choices(['allow', 'deny']))
    .option('--reason <text>', 'why, recorded with the answer')
    .action(
      run(
        async (
          ctx,
          sid: string,
          requestId: string,
          decision: 'allow' | 'deny',
          opts: { reason?: string },
        ) => {
          checkSessionId(sid);
          const reply = await ctx.client.answerPermission(sid, {
            requestId,
            decision,
            ...(opts.reason === undefined ? {} : { reason: opts.reason }),
          });
          if (isRuntimeFailure(reply)) throw failureError('answer', reply);
          print(ctx, { ok: true, requestId, decision }, [`${requestId} ${decision}`]);
        },
      ),
    );

  command('interrupt <sid>', 'stop the running turn', 'agentwire interrupt ses_123').action(
    run(async (ctx, sid: string) => {
      checkSessionId(sid);
      const reply = await ctx.client.interrupt(sid);
      if (isRuntimeFailure(reply)) throw failureError('interrupt', reply);
      print(ctx, reply, [`interrupted ${reply.turnId}`]);
    }),
  );

  command(
    'rename <sid> <title...>',
    'set the session title',
    'agentwire rename ses_123 "fix the login bug"',
  ).action(
    run(async (ctx, sid: string, words: string[]) => {
      checkSessionId(sid);
      const reply = await ctx.client.rename(sid, words.join(' '));
      if (isRuntimeFailure(reply)) throw failureError('rename', reply);
      print(ctx, reply, [reply.title]);
    }),
  );

  command(
    'mode <sid>',
    'show or set what tools may do: plan, build, edit, yolo, auto',
    'agentwire mode ses_123 plan',
  )
    .addArgument(
      new Argument('[mode]', 'the mode to set; without it, the current one').choices([
        'plan',
        'build',
        'edit',
        'yolo',
        'auto',
      ]),
    )
    .action(
      run(async (ctx, sid: string, mode: SetModeRequest['mode'] | undefined) => {
        checkSessionId(sid);
        if (mode === undefined) {
          const { asOfSeq, projection } = await readProjection(ctx, 'mode', sid);
          print(ctx, { ok: true, sessionId: sid, asOfSeq, mode: projection.mode }, [
            projection.mode,
          ]);
          return;
        }
        const reply = await ctx.client.setMode(sid, mode);
        if (isRuntimeFailure(reply)) throw failureError('mode', reply);
        print(ctx, reply, [
          reply.changed ? `${reply.previousMode} -> ${reply.mode}` : `already ${reply.mode}`,
        ]);
      }),
    );

  registerQueueCommand(kit);
  registerTreeCommands(kit);
  registerTranscriptCommands(kit, deps);

  command(
    'demo',
    'run a scripted session end to end (tools, a permission, the projection)',
    'agentwire demo',
  ).action(
    run(async (ctx) => {
      await demoCommand(ctx);
    }),
  );

  program.configureOutput({ writeOut: deps.writeOut });
  for (const cmd of [program, ...program.commands]) {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: deps.writeOut, writeErr: () => {}, outputError: () => {} });
  }
  return program;
}
