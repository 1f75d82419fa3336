import { treeParents } from '@agentwire/domain';
import type { SessionTree } from '../../kernel/chain-move.ts';
import type { FeatureContext, SlashCommand } from '../../kernel/feature.ts';
import type { CheckpointStore } from '../../kernel/ports.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import {
  type ChainMoveRequest,
  chainTo,
  messageOf,
  moveChain,
  readTree,
  type TreeView,
} from './chain-rewind.ts';
import type { CheckpointBook } from './checkpoint-book.ts';

/** What the tree commands share: the session's feature context, tree, store and book. */
export interface TreeCommandDeps {
  readonly ctx: FeatureContext;
  readonly tree: SessionTree;
  readonly store: CheckpointStore | undefined;
  readonly book: CheckpointBook;
  /** Runs `move` as the session's one rewind at a time. */
  readonly exclusive: <T>(move: () => Promise<T>) => Promise<T>;
}

/** The parent of `messageId` on the tree (`null` at the root). */
const parentOf = (view: TreeView, messageId: string): string | null =>
  treeParents(view.messages).get(messageId) ?? null;

/** The nearest real prompt at or before `messageId` on the active chain. */
function promptOf(view: TreeView, messageId: string): string | undefined {
  for (let i = view.current.indexOf(messageId); i >= 0; i -= 1) {
    const id = view.current[i] as string;
    if (view.byId.get(id)?.prompt === true) return id;
  }
  return undefined;
}

/** `/rewind <checkpointId>`: back to before its turn, files as before that tool call. */
function toCheckpoint(d: TreeCommandDeps, view: TreeView, checkpointId: string): ChainMoveRequest {
  const checkpoint = d.book.find(checkpointId);
  if (checkpoint === undefined) {
    throw new RuntimeError('unknown_checkpoint', `no checkpoint ${checkpointId} in this session`, {
      checkpointId,
      known: d.book.inForce(view.onCurrent).map((c) => c.checkpointId),
    });
  }
  if (!view.onCurrent.has(checkpoint.messageId)) {
    throw new RuntimeError(
      'checkpoint_not_on_branch',
      `checkpoint ${checkpointId} belongs to another branch of this session; /tree moves there`,
      { checkpointId },
    );
  }
  const prompt = promptOf(view, checkpoint.messageId);
  const target = prompt === undefined ? null : parentOf(view, prompt);
  const inForce = d.book.inForce(view.onCurrent);
  const at = inForce.findIndex((c) => c.checkpointId === checkpointId);
  return {
    target,
    since: inForce.slice(at).map((c) => c.checkpointId),
    checkpointId,
    kind: 'rewind',
  };
}

/** `/rewind <messageId>`: before a prompt, or to the end of another message's turn. */
function toMessage(d: TreeCommandDeps, view: TreeView, messageId: string): ChainMoveRequest {
  const message = messageOf(view, messageId);
  if (!view.onCurrent.has(messageId)) {
    throw new RuntimeError(
      'invalid_command',
      `message ${messageId} is on another branch; /tree ${messageId} moves there`,
      { command: 'rewind', usage: REWIND_USAGE },
    );
  }
  let target: string | null;
  if (message.prompt) target = parentOf(view, messageId);
  else {
    const from = view.current.indexOf(messageId);
    const next = view.current.findIndex((id, i) => i > from && view.byId.get(id)?.prompt === true);
    if (next < 0) {
      throw new RuntimeError(
        'nothing_to_rewind',
        `nothing follows the turn of ${messageId}: it is the last one`,
        { messageId },
      );
    }
    target = view.current[next - 1] as string;
  }
  return { target, since: filesBack(d, view, chainTo(view, target)), kind: 'rewind' };
}

/** The checkpoints on the active chain and not on `chain`, oldest first. */
function filesBack(d: TreeCommandDeps, view: TreeView, chain: readonly string[]): string[] {
  const keep = new Set(chain);
  return d.book
    .inForce(view.onCurrent)
    .filter((c) => !keep.has(c.messageId))
    .map((c) => c.checkpointId);
}

/** `/tree <messageId>`: any message of any branch becomes the leaf. */
function toBranch(d: TreeCommandDeps, view: TreeView, messageId: string): ChainMoveRequest {
  messageOf(view, messageId);
  const chain = chainTo(view, messageId);
  if (view.onCurrent.has(messageId)) {
    return { target: messageId, since: filesBack(d, view, chain), kind: 'rewind' };
  }
  const exit = d.book.exitTo(messageId, view.onCurrent);
  if (exit !== undefined) return { target: messageId, since: exit, kind: 'switch' };
  const mine = new Set(d.book.inForce(view.onCurrent).map((c) => c.checkpointId));
  const theirs = d.book.inForce(new Set(chain)).map((c) => c.checkpointId);
  const same = theirs.length === mine.size && theirs.every((c) => mine.has(c));
  return {
    target: messageId,
    since: [],
    kind: 'switch',
    ...(same
      ? {}
      : {
          filesStay:
            'files stay as they are: that branch was not left from the files of this one, so its files cannot be rebuilt',
        }),
  };
}

/** One branch of the tree: a leaf and the chain that ends there. */
function branches(view: TreeView) {
  const parents = treeParents(view.messages);
  const followed = new Set<string>();
  for (const p of parents.values()) if (p !== null) followed.add(p);
  const leaf = view.current.at(-1);
  return view.messages
    .filter((m) => !followed.has(m.id))
    .map((m) => {
      const chain = chainTo(view, m.id);
      let shared = 0;
      while (shared < chain.length && chain[shared] === view.current[shared]) shared += 1;
      const first = chain.slice(m.id === leaf ? 0 : shared).find((id) => view.byId.get(id)?.prompt);
      const firstMessage = first === undefined ? undefined : view.byId.get(first);
      return {
        leafId: m.id,
        active: m.id === leaf,
        size: chain.length,
        /** Where it leaves the active chain: the last message they share. */
        forkedAt: m.id === leaf ? null : (chain[shared - 1] ?? null),
        ...(firstMessage === undefined
          ? {}
          : { firstMessage: { id: firstMessage.id, preview: firstMessage.preview } }),
      };
    });
}

const REWIND_USAGE = '/rewind [checkpointId|messageId]';

/** `/rewind` and `/tree` (docs/decisions/0225, 0239). */
export function treeCommands(d: TreeCommandDeps): SlashCommand[] {
  const guard = (command: Parameters<SlashCommand['run']>[1]) => {
    const running = d.ctx.turnRunning() ? command.status().activeTurnId : null;
    if (running !== null) {
      throw new RuntimeError(
        'turn_in_progress',
        `turn ${running} is running; rewind when it has ended (or interrupt it)`,
        { turnId: running },
      );
    }
  };
  const rewind: SlashCommand = {
    name: 'rewind',
    kind: 'session',
    summary: 'List the checkpoints, or go back to one or to a message: files and conversation',
    usage: REWIND_USAGE,
    run: async (args, command) => {
      if (args === '') {
        const view = await readTree(d.tree);
        return { kind: 'result', result: { checkpoints: d.book.inForce(view.onCurrent) } };
      }
      guard(command);
      const result = await d.exclusive(async () => {
        const view = await readTree(d.tree);
        const request =
          d.book.find(args) !== undefined || args.startsWith('cp')
            ? toCheckpoint(d, view, args)
            : toMessage(d, view, args);
        return moveChain(d.ctx, d.tree, d.store, d.book, request, view);
      });
      return { kind: 'result', result };
    },
  };
  const tree: SlashCommand = {
    name: 'tree',
    kind: 'session',
    summary: "List the conversation's branches, or move to a message of any of them",
    usage: '/tree [messageId]',
    run: async (args, command) => {
      if (args === '') {
        const view = await readTree(d.tree);
        return {
          kind: 'result',
          result: { leafId: view.current.at(-1) ?? null, branches: branches(view) },
        };
      }
      guard(command);
      const result = await d.exclusive(async () => {
        const view = await readTree(d.tree);
        return moveChain(d.ctx, d.tree, d.store, d.book, toBranch(d, view, args), view);
      });
      return { kind: 'result', result };
    },
  };
  return [rewind, tree];
}
