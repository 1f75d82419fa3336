import { isRuntimeFailure } from '@agentwire/bus';
import {
  SessionProjection,
  type SetModeRequest,
  type SetQueueModesRequest,
  TICKET_WAIT_MAX_MS,
} from '@agentwire/contracts';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { type ChatTerminal, chatCommand } from './chat-command.ts';
import { type CliContext, checkSessionId, failureError, print } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { demoCommand } from './demo-command.ts';
import { followCommand } from './follow-command.ts';
import { formatPromptReply } from './format-prompt-reply.ts';
import {
  formatHistory,
  formatProjection,
  formatQueuedInput,
  formatSessions,
} from './format-read.ts';
import { checkpointsCommand, rewindCommand, treeCommand, treeEntryId } from './tree-command.ts';

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
}

const SEQUENCE = /^\d{1,15}$/;

function integer(min: number): (value: string) => number {
  return (value) => {
    if (!SEQUENCE.test(value) || Number(value) < min) {
      throw new InvalidArgumentError(`must be a whole number of at least ${min}`);
    }
    return Number(value);
  };
}

function sessionId(value: string): string {
  try {
    checkSessionId(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
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

  const command = (name: string, description: string, example: string): Command => {
    const cmd = program
      .command(name)
      .description(description)
      .option('--json', 'print JSON instead of text')
      .addHelpText('after', `\nExample:\n  $ ${example}`);
    return cmd;
  };
  const run =
    <A extends unknown[]>(action: (ctx: CliContext, ...args: A) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      const cmd = args.at(-1) as Command;
      const ctx = await deps.connect({ json: cmd.opts().json === true });
      await action(ctx, ...(args.slice(0, -1) as A));
    };

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

  command(
    'sessions',
    'list sessions, most recently updated first',
    'agentwire sessions --directory /src/app --limit 20',
  )
    .option('--directory <dir>', 'only sessions in this directory')
    .option('--parent <sid>', 'only children of this session', sessionId)
    .option('--roots', 'only sessions without a parent')
    .option('--task-type <type>', 'only sessions of this task type')
    .option('--archived', 'archived sessions instead of the others')
    .option('--limit <n>', 'sessions per page (1-500, default 50)', integer(1))
    .option('--cursor <cursor>', 'the page a previous listing pointed to')
    .action(
      run(
        async (
          ctx,
          opts: {
            directory?: string;
            parent?: string;
            roots?: boolean;
            taskType?: string;
            archived?: boolean;
            limit?: number;
            cursor?: string;
          },
        ) => {
          if (opts.roots === true && opts.parent !== undefined) {
            throw new CliError('usage', '--roots and --parent exclude each other', EXIT.usage);
          }
          const reply = await ctx.query.listSessions({
            ...(opts.directory === undefined ? {} : { directory: opts.directory }),
            ...(opts.parent === undefined ? {} : { parentId: opts.parent }),
            ...(opts.roots === true ? { parentId: null } : {}),
            ...(opts.taskType === undefined ? {} : { taskType: opts.taskType }),
            archived: opts.archived === true,
            ...(opts.limit === undefined ? {} : { limit: opts.limit }),
            ...(opts.cursor === undefined ? {} : { cursor: opts.cursor }),
          });
          if (isRuntimeFailure(reply)) throw failureError('sessions', reply);
          print(ctx, reply, formatSessions(reply, ctx.style));
        },
      ),
    );

  command(
    'history <sid>',
    "print one page of a session's messages with their parts",
    'agentwire history ses_123 --from end --limit 20',
  )
    .option('--limit <n>', 'messages per page (1-500, default 100)', integer(1))
    .option('--cursor <cursor>', 'the page an earlier page pointed to (older or newer)')
    .addOption(
      new Option('--from <start|end>', 'start at the oldest or the newest message').choices([
        'start',
        'end',
      ]),
    )
    .option('--as-of <n>', 'the history as it was at this event number', integer(0))
    .action(
      run(
        async (
          ctx,
          sid: string,
          opts: { limit?: number; cursor?: string; from?: 'start' | 'end'; asOf?: number },
        ) => {
          checkSessionId(sid);
          if (opts.cursor !== undefined && opts.from !== undefined) {
            throw new CliError('usage', '--cursor and --from exclude each other', EXIT.usage);
          }
          const reply = await ctx.query.history({
            sessionId: sid,
            ...(opts.limit === undefined ? {} : { limit: opts.limit }),
            ...(opts.cursor === undefined ? {} : { cursor: opts.cursor }),
            ...(opts.from === undefined ? {} : { from: opts.from }),
            ...(opts.asOf === undefined ? {} : { asOfSeq: opts.asOf }),
          });
          if (isRuntimeFailure(reply)) throw failureError('history', reply);
          print(ctx, reply, formatHistory(reply, ctx.style, opts.asOf !== undefined));
        },
      ),
    );

  command(
    'show <sid>',
    "print a readable summary of a session's projection",
    'agentwire show ses_123',
  ).action(
    run(async (ctx, sid: string) => {
      const { asOfSeq, projection } = await readProjection(ctx, 'show', sid);
      print(ctx, { asOfSeq, projection }, formatProjection(projection, asOfSeq, ctx.style));
    }),
  );

  command(
    'projection <sid>',
    "print the session's projection as JSON",
    'agentwire projection ses_123',
  ).action(
    run(async (ctx, sid: string) => {
      checkSessionId(sid);
      const snapshot = await ctx.client.projection(sid);
      if (isRuntimeFailure(snapshot)) throw failureError('projection', snapshot);
      const value = { asOfSeq: snapshot.asOfSeq, projection: snapshot.projection };
      ctx.out(ctx.json ? JSON.stringify(value) : JSON.stringify(value, null, 2));
    }),
  );

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

  command(
    'queue <sid>',
    'list, remove, move, edit or clear the inputs waiting for the running turn to end, or set how they are handed over',
    'agentwire queue ses_123 move in_2 1',
  )
    .addArgument(
      new Argument(
        '[action]',
        'list (default), rm <inputId>, move <inputId> <position>, edit <inputId> <text>, clear, modes [steering all|one] [followup all|one] [autodrain on|off]',
      )
        .choices(['list', 'rm', 'move', 'edit', 'clear', 'modes'])
        .default('list'),
    )
    .argument(
      '[args...]',
      'the input id (rm, move, edit), the new 1-based position (move), the new text (edit), or settings (modes)',
    )
    .addHelpText(
      'after',
      '  $ agentwire queue ses_123            # list, in delivery order\n  $ agentwire queue ses_123 rm in_2\n  $ agentwire queue ses_123 edit in_2 check the tests too\n  $ agentwire queue ses_123 clear      # nothing waiting: a no-op\n  $ agentwire queue ses_123 modes followup all autodrain off',
    )
    .action(
      run(async (ctx, sid: string, action: QueueAction, args: string[]) => {
        await queueCommand(ctx, sid, action, args);
      }),
    );

  command(
    'checkpoints <sid>',
    'list the checkpoints in force on the active branch: taken before each tool that writes or runs',
    'agentwire checkpoints ses_123',
  ).action(
    run(async (ctx, sid: string) => {
      await checkpointsCommand(ctx, sid);
    }),
  );

  command(
    'rewind <sid>',
    'put the files and the conversation back: to before a checkpoint, or to a message',
    'agentwire rewind ses_123 cp_call_7',
  )
    .argument(
      '<target>',
      'a checkpoint id (agentwire checkpoints) or a message id (agentwire tree, history)',
      treeEntryId,
    )
    .addHelpText(
      'after',
      '  $ agentwire rewind ses_123 msg_42   # to before that prompt, or to the end of its turn\n\nWhile a turn runs the rewind waits in the queue and runs when it ends.',
    )
    .action(
      run(async (ctx, sid: string, target: string) => {
        await rewindCommand(ctx, sid, target);
      }),
    );

  command(
    'tree <sid>',
    "list the conversation's branches (the active one marked *), or move to a message of any of them",
    'agentwire tree ses_123',
  )
    .argument(
      '[messageId]',
      'the message to make the leaf (a branch leaf, or any message)',
      treeEntryId,
    )
    .addHelpText(
      'after',
      '  $ agentwire tree ses_123 msg_42     # switch to that branch, its files with it',
    )
    .action(
      run(async (ctx, sid: string, messageId: string | undefined) => {
        await treeCommand(ctx, sid, messageId);
      }),
    );

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

async function readProjection(
  ctx: CliContext,
  what: string,
  sid: string,
): Promise<{ asOfSeq: number; projection: SessionProjection }> {
  checkSessionId(sid);
  const snapshot = await ctx.client.projection(sid);
  if (isRuntimeFailure(snapshot)) throw failureError(what, snapshot);
  const parsed = SessionProjection.safeParse(snapshot.projection);
  if (!parsed.success) {
    throw new CliError(
      'invalid_reply',
      `${what}: the projection of ${sid} has an unknown shape`,
      EXIT.failure,
    );
  }
  return { asOfSeq: snapshot.asOfSeq, projection: parsed.data };
}

function usage(message: string): CliError {
  return new CliError('usage', message, EXIT.usage);
}

type QueueAction = 'list' | 'rm' | 'move' | 'edit' | 'clear' | 'modes';

/** `modes` settings as a `set_queue_modes` request: `steering|followup all|one`, `autodrain on|off`. */
function queueModesOf(args: readonly string[]): SetQueueModesRequest {
  const request: { -readonly [K in keyof SetQueueModesRequest]: SetQueueModesRequest[K] } = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i];
    const value = args[i + 1];
    if (key === 'steering' || key === 'followup') {
      if (value !== 'all' && value !== 'one') {
        throw usage(`queue modes: ${key} takes all or one, got ${JSON.stringify(value ?? '')}`);
      }
      const mode = value === 'all' ? 'all' : 'one_at_a_time';
      if (key === 'steering') request.steeringMode = mode;
      else request.followUpMode = mode;
    } else if (key === 'autodrain') {
      if (value !== 'on' && value !== 'off') {
        throw usage(`queue modes: autodrain takes on or off, got ${JSON.stringify(value ?? '')}`);
      }
      request.autoDrain = value === 'on';
    } else {
      throw usage(
        `queue modes: unknown setting ${JSON.stringify(key)} (steering, followup or autodrain)`,
      );
    }
  }
  return request;
}

function modesLine(modes: { steeringMode: string; followUpMode: string; autoDrain: boolean }) {
  return `steering ${modes.steeringMode}  followUp ${modes.followUpMode}  auto-drain ${modes.autoDrain ? 'on' : 'off'}`;
}

async function queueCommand(
  ctx: CliContext,
  sid: string,
  action: QueueAction,
  args: readonly string[],
): Promise<void> {
  checkSessionId(sid);
  if (action === 'modes') {
    if (args.length === 0) {
      const { asOfSeq, projection } = await readProjection(ctx, 'queue modes', sid);
      const modes = projection.queueModes;
      print(ctx, { ok: true, sessionId: sid, asOfSeq, ...modes }, [modesLine(modes)]);
      return;
    }
    const reply = await ctx.client.setQueueModes(sid, queueModesOf(args));
    if (isRuntimeFailure(reply)) throw failureError('queue modes', reply);
    print(ctx, reply, [modesLine(reply) + (reply.changed ? '' : ctx.style.dim('  (unchanged)'))]);
    return;
  }
  const arity = { list: 0, rm: 1, move: 2, edit: 2, clear: 0 }[action];
  const fits = action === 'edit' ? args.length >= arity : args.length === arity;
  if (!fits) {
    const want = {
      list: 'no arguments',
      rm: 'an input id',
      move: 'an input id and a position',
      edit: 'an input id and the new text',
      clear: 'no arguments',
    };
    throw usage(`queue ${action} takes ${want[action]}, got ${args.length}`);
  }
  if (action === 'edit') {
    const [inputId = '', ...words] = args;
    const reply = await ctx.client.editInput(sid, inputId, words.join(' '));
    if (isRuntimeFailure(reply)) throw failureError('queue edit', reply);
    print(ctx, reply, [`edited ${reply.inputId}`]);
    return;
  }
  if (action === 'clear') {
    const reply = await ctx.client.clearInputs(sid);
    if (isRuntimeFailure(reply)) throw failureError('queue clear', reply);
    print(ctx, reply, [
      reply.cleared.length === 0
        ? ctx.style.dim('the queue was empty')
        : `cleared ${reply.cleared.join(', ')}`,
    ]);
    return;
  }
  if (action === 'rm') {
    const inputId = args[0] ?? '';
    const reply = await ctx.client.removeInput(sid, inputId);
    if (isRuntimeFailure(reply)) throw failureError('queue rm', reply);
    print(ctx, reply, [`removed ${reply.inputId}`]);
    return;
  }
  if (action === 'list') {
    const { asOfSeq, projection } = await readProjection(ctx, 'queue list', sid);
    const waiting = projection.pendingSteerInputs;
    print(
      ctx,
      { ok: true, sessionId: sid, asOfSeq, inputs: waiting },
      waiting.length === 0
        ? [ctx.style.dim('the queue is empty')]
        : waiting.map((input, i) => formatQueuedInput(input, i, ctx.style)),
    );
    return;
  }
  const [inputId = '', at = ''] = args;
  if (!SEQUENCE.test(at) || Number(at) < 1) {
    throw usage(
      `queue move: the position must be a whole number of at least 1, got ${JSON.stringify(at)}`,
    );
  }
  // The runtime checks the queue as it is now (R10.3): the input and the position.
  const reply = await ctx.client.moveInput(sid, inputId, Number(at) - 1);
  if (isRuntimeFailure(reply)) throw failureError('queue move', reply);
  print(
    ctx,
    reply,
    reply.order.map((id, i) => `${String(i + 1).padStart(3)}. ${id}`),
  );
}
