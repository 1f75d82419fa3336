import type { SessionEvent } from '@agentwire/contracts';
import { syntheticAnchorOrigin, syntheticNoticeSemantics } from '@agentwire/domain';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
  ToolCallContext,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** One checkpoint of this session, as the stream states it. */
interface Checkpoint {
  readonly checkpointId: string;
  readonly messageId: string;
  readonly fileCount: number;
}

/** The checkpoints still in force: created ones, minus those a rewind undid (in order). */
function recovered(events: readonly SessionEvent[]): Checkpoint[] {
  const list: Checkpoint[] = [];
  for (const e of events) {
    if (e.type === 'checkpoint_created') {
      list.push({
        checkpointId: e.payload.checkpointId,
        messageId: e.payload.messageId,
        fileCount: e.payload.fileCount ?? 0,
      });
    } else if (
      e.type === 'rewind_triggered' &&
      e.payload.strategy === 'file_only' &&
      e.payload.targetCheckpointId !== undefined
    ) {
      const at = list.findIndex((c) => c.checkpointId === e.payload.targetCheckpointId);
      if (at >= 0) list.splice(at);
    }
  }
  return list;
}

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
  if (store === undefined) return {};
  const checkpoints = recovered(ctx.recovered);
  let rewinding = false;
  let pendingNotice = untold(ctx.recovered);

  const rewind: SlashCommand = {
    name: 'rewind',
    kind: 'session',
    summary: 'List the checkpoints, or put the workspace back as it was before one',
    usage: '/rewind [checkpointId]',
    run: async (args, command) => {
      if (args === '') return { kind: 'result', result: { checkpoints: [...checkpoints] } };
      const at = checkpoints.findIndex((c) => c.checkpointId === args);
      if (at < 0) {
        throw new RuntimeError('unknown_checkpoint', `no checkpoint ${args} in this session`, {
          checkpointId: args,
          known: checkpoints.map((c) => c.checkpointId),
        });
      }
      // A command action's own turn (0238) is the boundary it runs at, not a running turn.
      const running = ctx.turnRunning() ? command.status().activeTurnId : null;
      if (running !== null || rewinding) {
        throw new RuntimeError(
          'turn_in_progress',
          running !== null
            ? `turn ${running} is running; rewind when it has ended (or interrupt it)`
            : 'a rewind is running already',
          running === null ? {} : { turnId: running },
        );
      }
      rewinding = true;
      try {
        const since = checkpoints.slice(at).map((c) => c.checkpointId);
        const outcome = await store.rewind(ctx.sessionId, since);
        const rewindId = `rw_${args}_${checkpoints.length}`;
        if (!outcome.ok) {
          const strategy = outcome.reason === 'changed' ? 'fork_required' : 'unavailable';
          await ctx.emit('rewind_triggered', {
            rewindId,
            scope: 'workspace',
            strategy,
            targetCheckpointId: args,
            reason: outcome.message,
          });
          return {
            kind: 'result',
            result: { rewindId, strategy, reason: outcome.message, files: outcome.files },
          };
        }
        checkpoints.splice(at);
        pendingNotice = rewindNotice(args, outcome.restored, outcome.removed);
        await ctx.emit('rewind_triggered', {
          rewindId,
          scope: 'workspace',
          strategy: 'file_only',
          targetCheckpointId: args,
          ...(outcome.unrestorable.length === 0
            ? {}
            : { reason: `not restorable: ${outcome.unrestorable.join(', ')}` }),
        });
        return {
          kind: 'result',
          result: {
            rewindId,
            strategy: 'file_only',
            restored: outcome.restored,
            removed: outcome.removed,
            unrestorable: outcome.unrestorable,
          },
        };
      } finally {
        rewinding = false;
      }
    },
  };

  return {
    commands: [rewind],
    // The next turn's model is told what the rewind did (R8): a model-only notice after
    // the turn's prompt, written before the model sees it, so a cold open has it too.
    async onTurnStart(turn) {
      const text = pendingNotice;
      if (text === undefined) return;
      const id = ctx.ids.newId('msg');
      const committed = await ctx.conversation.saveMessage(
        {
          id,
          sessionId: ctx.sessionId,
          role: 'user',
          time: { created: turn.now },
          agent: 'build',
          synthetic: true,
          source: 'rewind',
          visibility: 'model-only',
          semantics: syntheticNoticeSemantics('rewind'),
          anchor: { turnId: turn.turnId, origin: syntheticAnchorOrigin('rewind') },
        },
        [{ id: ctx.ids.newId('prt'), sessionId: ctx.sessionId, messageId: id, type: 'text', text }],
        turn.traceId,
      );
      if (!committed) return;
      pendingNotice = undefined;
      ctx.conversation.append({ role: 'user', content: text });
    },
    async beforeTool(call) {
      if (call.tool.effect === 'read') return;
      const checkpointId = `cp_${call.toolCallId}`;
      const scope = scopeOf(call);
      const captured = await store.capture(ctx.sessionId, checkpointId, scope);
      checkpoints.push({
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
    async afterTool(call) {
      if (call.tool.effect === 'read') return;
      // What the tool left: a later rewind tells the user's edits from the agent's by it.
      await store.settle(ctx.sessionId, `cp_${call.toolCallId}`).catch(() => undefined);
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
