import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import { Option } from 'commander';
import { checkSessionId, failureError, print } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { type CommandKit, integer, sessionId } from './command-kit.ts';
import { formatHistory, formatProjection, formatSessions } from './format-read.ts';
import { readProjection } from './read-projection.ts';

/**
 * The read commands: `sessions` and `history` (the read side, `aw.query.*`), `show` and
 * `projection` (the session's projection).
 */
export function registerReadCommands({ command, run }: CommandKit): void {
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
}
