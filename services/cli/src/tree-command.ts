import { isRuntimeFailure } from '@agentwire/bus';
import { TreeEntryId } from '@agentwire/contracts';
import { InvalidArgumentError } from 'commander';
import { type CliContext, checkSessionId, failureError, print } from './cli-context.ts';
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
export async function checkpointsCommand(ctx: CliContext, sid: string): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.client.rewind(sid);
  if (isRuntimeFailure(reply)) throw failureError('checkpoints', reply);
  print(ctx, reply, formatCheckpoints(reply, ctx.style));
}

/** `agentwire rewind <sid> <target>`: files and conversation back to a checkpoint or message. */
export async function rewindCommand(ctx: CliContext, sid: string, target: string): Promise<void> {
  checkSessionId(sid);
  const reply = await ctx.client.rewind(sid, target);
  if (isRuntimeFailure(reply)) throw failureError('rewind', reply);
  print(ctx, reply, formatMove(reply, 'rewound', ctx.style));
}

/** `agentwire tree <sid> [messageId]`: the branches, or a move to a message of any of them. */
export async function treeCommand(
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
