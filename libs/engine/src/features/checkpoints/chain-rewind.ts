import { activeChain } from '@agentwire/domain';
import type { SessionTree } from '../../kernel/chain-move.ts';
import type { FeatureContext } from '../../kernel/feature.ts';
import type { CheckpointStore, TreeMessage } from '../../kernel/ports.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import { type CheckpointBook, exitCheckpointId } from './checkpoint-book.ts';

/** The session tree as one read gives it, with the active chain (docs/decisions/0239). */
export interface TreeView {
  readonly messages: readonly TreeMessage[];
  readonly byId: ReadonlyMap<string, TreeMessage>;
  /** The active chain's ids, root first, and as a set. */
  readonly current: readonly string[];
  readonly onCurrent: ReadonlySet<string>;
}

export async function readTree(tree: SessionTree): Promise<TreeView> {
  const messages = await tree.messages();
  const leaf = tree.leaf();
  const current =
    leaf === null || !messages.some((m) => m.id === leaf)
      ? activeChain(messages).map((m) => m.id)
      : activeChain(messages, leaf).map((m) => m.id);
  return {
    messages,
    byId: new Map(messages.map((m) => [m.id, m])),
    current,
    onCurrent: new Set(current),
  };
}

/** The ids of the chain ending at `leafId`, root first (`null`: none). */
export function chainTo(view: TreeView, leafId: string | null): string[] {
  return leafId === null ? [] : activeChain(view.messages, leafId).map((m) => m.id);
}

/** A move of the active chain, as `/rewind` and `/tree` ask for it. */
export interface ChainMoveRequest {
  /** Where the chain ends after the move; `null` before the session's first message. */
  readonly target: string | null;
  /** The checkpoints whose files go back, oldest first (none: files stay). */
  readonly since: readonly string[];
  /** The checkpoint `/rewind` named. */
  readonly checkpointId?: string;
  /** Why files stay as they are although the branches differ. */
  readonly filesStay?: string;
  /** Navigation to another branch (the notice says so), or a rewind along the chain. */
  readonly kind: 'rewind' | 'switch';
}

/**
 * True when the move leaves the session's first question behind (R9.9): the first prompt
 * of the active chain is not on the chain ending at `target`.
 */
function dropsFirstQuestion(view: TreeView, target: string | null): boolean {
  const first = view.current.find((id) => view.byId.get(id)?.prompt === true);
  return first !== undefined && !chainTo(view, target).includes(first);
}

/** What a move reports: its `rewind_triggered`, and the files. */
export type ChainMoveResult = Readonly<Record<string, unknown>>;

function noticeText(
  request: ChainMoveRequest,
  restored: readonly string[],
  removed: readonly string[],
): string {
  const files = [
    restored.length === 0 ? '' : ` Restored: ${restored.join(', ')}.`,
    removed.length === 0 ? '' : ` Deleted again (they did not exist then): ${removed.join(', ')}.`,
  ].join('');
  const moved =
    request.kind === 'switch'
      ? 'The user switched this conversation to another of its branches: what you see is that branch.'
      : 'The user rewound this conversation to an earlier point: the turns after it were undone and are not part of it any more.';
  const workspace =
    request.since.length > 0
      ? ` The workspace files are back as they were at this point.${files} Earlier tool results about these files are out of date; read them again before relying on them.`
      : request.filesStay === undefined
        ? ''
        : ' The workspace files were not changed: they may differ from what this conversation says.';
  return `<system-reminder>${moved}${workspace}</system-reminder>`;
}

/**
 * Moves the active chain (docs/decisions/0239): first the files (a refusal changes
 * nothing: the user's edits are never overwritten), keeping what they were as the exit
 * checkpoint of the branch left; then the conversation, through the notice; then the
 * events, `checkpoint_created` of the exit and `rewind_triggered`.
 */
export async function moveChain(
  ctx: FeatureContext,
  tree: SessionTree,
  store: CheckpointStore | undefined,
  book: CheckpointBook,
  request: ChainMoveRequest,
  view: TreeView,
): Promise<ChainMoveResult> {
  const rewindId = ctx.ids.newId('rw');
  const noticeId = ctx.ids.newId('msg');
  const target = request.target === null ? {} : { targetMessageId: request.target };
  const checkpoint =
    request.checkpointId === undefined ? {} : { targetCheckpointId: request.checkpointId };
  const scope = request.since.length > 0 ? 'both' : 'conversation';
  let restored: readonly string[] = [];
  let removed: readonly string[] = [];
  let unrestorable: readonly string[] = [];
  let kept: { readonly snapshotRef: string; readonly fileCount: number } | undefined;
  if (request.since.length > 0 && store !== undefined) {
    const outcome = await store.rewind(ctx.sessionId, request.since, {
      keepAs: exitCheckpointId(noticeId),
    });
    if (!outcome.ok) {
      const strategy = outcome.reason === 'changed' ? 'fork_required' : 'unavailable';
      await ctx.emit('rewind_triggered', {
        rewindId,
        scope,
        strategy,
        ...target,
        ...checkpoint,
        reason: outcome.message,
      });
      return { rewindId, scope, strategy, reason: outcome.message, files: outcome.files };
    }
    ({ restored, removed, unrestorable, kept } = outcome);
  }
  const abandoned = tree.leaf();
  try {
    await tree.moveTo(
      request.target,
      { id: noticeId, text: noticeText(request, restored, removed) },
      ctx.ids.newTraceId(),
    );
  } catch (error) {
    if (request.since.length === 0) throw error;
    // The files moved and the conversation did not: say so as a workspace-only rewind.
    const first = request.since[0] as string;
    book.undoFrom(first);
    const reason = `the conversation did not move: ${error instanceof Error ? error.message : String(error)}`;
    await ctx.emit('rewind_triggered', {
      rewindId,
      scope: 'workspace',
      strategy: 'file_only',
      targetCheckpointId: first,
      reason,
    });
    return { rewindId, scope: 'workspace', strategy: 'file_only', reason, restored, removed };
  }
  if (dropsFirstQuestion(view, request.target)) {
    await tree.firstQuestionRewound(ctx.ids.newTraceId());
  }
  if (kept !== undefined && abandoned !== null) {
    const checkpointId = exitCheckpointId(noticeId);
    book.add({ checkpointId, messageId: abandoned, fileCount: kept.fileCount });
    await ctx.emit('checkpoint_created', {
      checkpointId,
      messageId: abandoned,
      snapshotRef: kept.snapshotRef,
      scope: 'workspace',
      fileCount: kept.fileCount,
    });
  }
  const notes = [
    ...(unrestorable.length === 0 ? [] : [`not restorable: ${unrestorable.join(', ')}`]),
    ...(request.filesStay === undefined ? [] : [request.filesStay]),
  ];
  const reason = notes.length === 0 ? {} : { reason: notes.join('; ') };
  await ctx.emit('rewind_triggered', {
    rewindId,
    scope,
    strategy: 'active_chain',
    ...target,
    ...checkpoint,
    ...reason,
  });
  return {
    rewindId,
    scope,
    strategy: 'active_chain',
    leafId: noticeId,
    ...target,
    ...checkpoint,
    restored,
    removed,
    unrestorable,
    ...reason,
  };
}

/** The message `messageId` names, or `unknown_message`. */
export function messageOf(view: TreeView, messageId: string): TreeMessage {
  const message = view.byId.get(messageId);
  if (message === undefined) {
    throw new RuntimeError('unknown_message', `no message ${messageId} in this session`, {
      messageId,
    });
  }
  return message;
}
