import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import { TreeEntryId } from '@agentwire/contracts';
import { InvalidArgumentError } from 'commander';
import { type CliContext, checkSessionId, failureError, print } from './cli-context.ts';
import type { CommandKit } from './command-kit.ts';
import { formatCheckpoints, formatMove, formatTree } from './format-tree.ts';

/**
 * Checks a checkpoint or message id argument as the operations do (one id: no whitespace,
 * no `*` or `>`), so a bad one is a usage error before anything connects.
 */
export function treeEntryId(value: string): string {
  const parsed = TreeEntryId.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? '');
  return parsed.data;
}

/** `agentwire checkpoints <sid>`: the checkpoints in force on the active branch. */
async function checkpointsCommand(ctx: CliContext, sid: string): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.client.rewind(sid);
  if (isRuntimeFailure(reply)) throw failureError('checkpoints', reply);
  print(ctx, reply, formatCheckpoints(reply, ctx.style));
}

/** `agentwire rewind <sid> <target>`: files and conversation back to a checkpoint or message. */
async function rewindCommand(ctx: CliContext, sid: string, target: string): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.client.rewind(sid, target);
  if (isRuntimeFailure(reply)) throw failureError('rewind', reply);
  print(ctx, reply, formatMove(reply, 'rewound', ctx.style));
}

/** `agentwire tree <sid> [messageId]`: the branches, or a move to a message of any of them. */
async function treeCommand(
  ctx: CliContext,
  sid: string,
  messageId: string | undefined,
): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.client.tree(sid, messageId);
  if (isRuntimeFailure(reply)) throw failureError('tree', reply);
  const lines =
    messageId === undefined ? formatTree(reply, ctx.style) : formatMove(reply, 'moved', ctx.style);
  print(ctx, reply, lines);
}

/** `agentwire checkpoints`, `rewind` and `tree` (docs/decisions/0242). */
export function registerTreeCommands({ command, run }: CommandKit): void {
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
}
