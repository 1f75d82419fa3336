/**
 * The session tree's operations (docs/decisions/0225, 0239, 0240, 0242, 0243): `rewind`,
 * `tree` and `fork` on `aw.rt.<sid>.<op>` are the `/rewind`, `/tree` and `/fork` commands
 * with their ids checked first, and the results those commands give, for a frontend to read
 * them.
 */
import { z } from 'zod';
import { Count } from './payloads/common.ts';
import { CheckpointCreatedPayload, RewindTriggeredPayload } from './payloads/rewind-checkpoint.ts';
import { CommandPromptReply, QueuedPromptReply } from './runtime-protocol.ts';
import { SessionId } from './session-event.ts';

/**
 * A checkpoint id or a message id as an operation names it. The runtime mints them (`cp_…`,
 * `msg_…`; an import's carry a suffix that may hold `.`), so only what would change the
 * command is refused: whitespace (the id becomes the command's argument, and a second word
 * is a second argument) and the subject wildcards `*` and `>` (an id is never a pattern).
 */
export const TreeEntryId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s*>]+$/, 'must be one id: no whitespace, "*" or ">"');

/**
 * `aw.rt.<sid>.rewind`: `/rewind [target]`. Without `target`, the checkpoints in force on
 * the active chain; with a checkpoint id, back to before that checkpoint's turn (files as
 * before that tool call); with a message id, back to before it (a prompt) or to the end of
 * its turn (docs/decisions/0239).
 */
export const RewindRequest = z.strictObject({ target: TreeEntryId.optional() });
/** `rewind` request. */
export type RewindRequest = z.infer<typeof RewindRequest>;

/**
 * `aw.rt.<sid>.tree`: `/tree [messageId]`. Without `messageId`, the branches; with it, that
 * message of any branch becomes the leaf (with the files the branch left, when it can).
 */
export const TreeRequest = z.strictObject({ messageId: TreeEntryId.optional() });
/** `tree` request. */
export type TreeRequest = z.infer<typeof TreeRequest>;

/**
 * `aw.rt.<sid>.fork`: `/fork <messageId>`, a new session holding a copy of the chain up to
 * that message, of any branch (docs/decisions/0240).
 */
export const ForkRequest = z.strictObject({ messageId: TreeEntryId });
/** `fork` request. */
export type ForkRequest = z.infer<typeof ForkRequest>;

/**
 * Reply of `rewind`, `tree` and `fork`, the one `prompt` gives their command line: idle,
 * the command ran and `result` is its own ({@link CheckpointListing}, {@link TreeListing},
 * a {@link ChainMoveResult} or a {@link ForkResult}); busy, it waits as an action with a
 * ticket (`inputId`) and runs in a turn of its own at the boundary (docs/decisions/0238).
 */
export const SessionCommandReply = z.union([CommandPromptReply, QueuedPromptReply]);
/** Reply of `rewind`, `tree` and `fork`. */
export type SessionCommandReply = z.infer<typeof SessionCommandReply>;

/** Result of `/rewind` without a target: the checkpoints in force, oldest first. */
export const CheckpointListing = z.object({
  checkpoints: z.array(
    CheckpointCreatedPayload.pick({ checkpointId: true, messageId: true }).extend({
      fileCount: Count,
    }),
  ),
});
/** Result of `/rewind` without a target. */
export type CheckpointListing = z.infer<typeof CheckpointListing>;

/** One branch of the tree: the chain that ends at `leafId`. */
const TreeBranch = z.object({
  leafId: z.string(),
  active: z.boolean(),
  /** Messages on the chain, from the session's first. */
  size: Count,
  /** The last message it shares with the active chain (`null`: the active one, or none). */
  forkedAt: z.string().nullable(),
  /** Its first prompt of its own (the active branch: its first). */
  firstMessage: z.object({ id: z.string(), preview: z.string() }).optional(),
});

/** Result of `/tree` without a message: the leaf and every branch. */
export const TreeListing = z.object({
  leafId: z.string().nullable(),
  branches: z.array(TreeBranch),
});
/** Result of `/tree` without a message. */
export type TreeListing = z.infer<typeof TreeListing>;

/**
 * Result of a move (`/rewind <target>`, `/tree <messageId>`): what `rewind_triggered` says,
 * the new leaf (`leafId`, the rewind notice), the files put back, deleted and not
 * restorable; a refused one (`fork_required`, `unavailable`) names the `files` and moved
 * nothing.
 */
export const ChainMoveResult = RewindTriggeredPayload.extend({
  leafId: z.string().optional(),
  restored: z.array(z.string()).optional(),
  removed: z.array(z.string()).optional(),
  unrestorable: z.array(z.string()).optional(),
  files: z.array(z.string()).optional(),
});
/** Result of a move. */
export type ChainMoveResult = z.infer<typeof ChainMoveResult>;

/**
 * Result of `/fork <messageId>`: the new session (leased by `owner`, followable from number
 * 1, its event 1 `session_forked`) and how many messages it holds, the target's chain.
 */
export const ForkResult = z.object({
  forkedSessionId: SessionId,
  owner: z.string(),
  targetMessageId: z.string(),
  messageCount: Count,
});
/** Result of `/fork`. */
export type ForkResult = z.infer<typeof ForkResult>;
