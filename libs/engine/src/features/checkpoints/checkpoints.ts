import type { SessionEvent } from '@agentwire/contracts';
import { syntheticNotice } from '@agentwire/domain';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  ToolCallContext,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import { CheckpointBook } from './checkpoint-book.ts';
import { treeCommands } from './tree-commands.ts';

/** The paths a call will write, when it names them; `workspace` when it may touch anything. */
function scopeOf(call: ToolCallContext): readonly string[] | 'workspace' {
  const path = (call.input as { path?: unknown } | null)?.path;
  return call.tool.effect === 'write' && typeof path === 'string' ? [path] : 'workspace';
}

/** What the model is told of a rewind on the next turn (R8 `rewind`, 0230). */
function rewindNotice(
  checkpointId: string,
  restored: readonly string[],
  removed: readonly string[],
) {
  const files = [
    restored.length === 0 ? '' : ` Restored: ${restored.join(', ')}.`,
    removed.length === 0 ? '' : ` Deleted again (they did not exist then): ${removed.join(', ')}.`,
  ].join('');
  return (
    `<system-reminder>The user rewound the workspace to checkpoint ${checkpointId}: the files ` +
    `are as they were before that tool call.${files} Earlier tool results about these files ` +
    'are out of date; read them again before relying on them.</system-reminder>'
  );
}

/** A rewind the model has not been told of: one after the session's last turn start. */
function untold(events: readonly SessionEvent[]): string | undefined {
  let notice: string | undefined;
  for (const e of events) {
    if (e.type === 'turn_started') notice = undefined;
    else if (
      e.type === 'rewind_triggered' &&
      e.payload.strategy === 'file_only' &&
      e.payload.targetCheckpointId !== undefined
    ) {
      notice = rewindNotice(e.payload.targetCheckpointId, [], []);
    }
  }
  return notice;
}

function attach(ctx: FeatureContext): FeatureHooks {
  const store = ctx.checkpoints;
  const { tree } = ctx;
  if (store === undefined && tree === undefined) return {};
  const book = CheckpointBook.recovered(ctx.recovered);
  let rewinding = false;
  let pendingNotice = untold(ctx.recovered);
  const exclusive = async <T>(move: () => Promise<T>): Promise<T> => {
    if (rewinding) {
      throw new RuntimeError('turn_in_progress', 'a rewind is running already', {});
    }
    rewinding = true;
    try {
      return await move();
    } finally {
      rewinding = false;
      // What waited for this rewind (a second one, a prompt) may start now.
      ctx.wake();
    }
  };
  const commands = tree === undefined ? [] : treeCommands({ ctx, tree, store, book, exclusive });

  return {
    commands,
    // A second /rewind waits for the first in the queue (0238), as a prompt does.
    busy: () => rewinding,
    // The next turn's model is told what the rewind did (R8): a model-only notice after
    // the turn's prompt, written before the model sees it, so a cold open has it too.
    async onTurnStart(turn) {
      const text = pendingNotice;
      if (text === undefined) return;
      const id = ctx.ids.newId('msg');
      const { message, parts } = syntheticNotice({
        source: 'rewind',
        id,
        partId: ctx.ids.newId('prt'),
        sessionId: ctx.sessionId,
        created: turn.now,
        text,
        turnId: turn.turnId,
      });
      const committed = await ctx.conversation.saveMessage(message, parts, turn.traceId);
      if (!committed) return;
      pendingNotice = undefined;
      ctx.conversation.append({ role: 'user', content: text });
    },
    async beforeTool(call) {
      if (store === undefined || call.tool.effect === 'read') return;
      const checkpointId = `cp_${call.toolCallId}`;
      const scope = scopeOf(call);
      const captured = await store.capture(ctx.sessionId, checkpointId, scope);
      book.add({
        checkpointId,
        messageId: call.messageId,
        fileCount: captured.fileCount,
      });
      await ctx.emit(
        'checkpoint_created',
        {
          checkpointId,
          messageId: call.messageId,
          snapshotRef: captured.snapshotRef,
          scope: 'workspace',
          fileCount: captured.fileCount,
        },
        call,
      );
    },
    // A turn's checkpoints are in the shared store by its end, for any instance's rewind.
    async onTurnEnd() {
      await store?.flush().catch(() => undefined);
    },
    async afterTool(call, output) {
      if (store === undefined || call.tool.effect === 'read') return;
      // What the tool left: a later rewind tells the user's edits from the agent's by it.
      await store
        .settle(ctx.sessionId, `cp_${call.toolCallId}`, output?.filesWritten)
        .catch(() => undefined);
    },
  };
}

/**
 * Workspace checkpoints and rewind (R6, R16.2, docs/decisions/0225): before a tool that
 * writes or runs anything, a snapshot of what it may touch; `/rewind <checkpointId>` puts
 * the files back, unless someone else changed them since.
 */
export const checkpoints: SessionFeature = {
  name: 'checkpoints',
  recoversEvery: ['checkpoint_created', 'rewind_triggered'],
  // The last turn start tells a rewind the model was told of from one it was not.
  recoversFrom: ['turn_started'],
  attach,
};
