import { activeChain, syntheticNotice } from '@agentwire/domain';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** What the host tells a forked session about where it came from (`announce_fork`). */
function announcement(body: unknown): { originalSessionId: string; targetMessageId: string } {
  const b = (body ?? {}) as { originalSessionId?: unknown; targetMessageId?: unknown };
  if (typeof b.originalSessionId !== 'string' || typeof b.targetMessageId !== 'string') {
    throw new RuntimeError(
      'invalid_request',
      'announce_fork takes originalSessionId and targetMessageId',
      {},
    );
  }
  return { originalSessionId: b.originalSessionId, targetMessageId: b.targetMessageId };
}

const USAGE = '/fork <messageId>';

function attach(ctx: FeatureContext): FeatureHooks {
  const { tree, replacements } = ctx;
  if (tree === undefined || replacements === undefined) return {};

  const fork: SlashCommand = {
    name: 'fork',
    kind: 'session',
    summary: 'Fork this conversation at a message into a new session',
    usage: USAGE,
    run: async (args, command) => {
      if (args === '' || /\s/.test(args)) {
        throw new RuntimeError('invalid_command', `/fork takes one message id: ${USAGE}`, {
          command: 'fork',
          usage: USAGE,
        });
      }
      const running = ctx.turnRunning() ? command.status().activeTurnId : null;
      if (running !== null) {
        throw new RuntimeError(
          'turn_in_progress',
          `turn ${running} is running; fork when it has ended (or interrupt it)`,
          { turnId: running },
        );
      }
      const messages = await tree.messages();
      if (!messages.some((m) => m.id === args)) {
        throw new RuntimeError('unknown_message', `no message ${args} in this session`, {
          messageId: args,
        });
      }
      const messageIds = activeChain(messages, args).map((m) => m.id);
      const forked = await replacements.fork({
        sessionId: ctx.sessionId,
        messageIds,
        targetMessageId: args,
        title: command.status().title ?? null,
      });
      await ctx.emit('session_forked', {
        originalSessionId: ctx.sessionId,
        forkedSessionId: forked.sessionId,
        targetMessageId: args,
      });
      return {
        kind: 'result',
        result: {
          forkedSessionId: forked.sessionId,
          owner: forked.owner,
          targetMessageId: args,
          messageCount: messageIds.length,
        },
      };
    },
  };

  /** In the new session: the event, the model's notice and the UI's divider (R7.7, R8). */
  const announce = async (body: unknown) => {
    const { originalSessionId, targetMessageId } = announcement(body);
    const traceId = ctx.ids.newTraceId();
    await ctx.emit('session_forked', {
      originalSessionId,
      forkedSessionId: ctx.sessionId,
      targetMessageId,
    });
    const text =
      `<system-reminder>This conversation was forked from session ${originalSessionId} at ` +
      'its message shown last above: it goes on separately from here, and the other session ' +
      'does not see what happens in this one.</system-reminder>';
    const { message, parts } = syntheticNotice({
      source: 'fork',
      id: ctx.ids.newId('msg'),
      partId: ctx.ids.newId('prt'),
      sessionId: ctx.sessionId,
      created: ctx.clock.now(),
      text,
    });
    if (!(await ctx.conversation.saveMessage(message, parts, traceId))) {
      throw new RuntimeError('write_not_confirmed', 'the fork notice was not confirmed', {
        retryable: true,
      });
    }
    ctx.conversation.append({ role: 'user', content: text });
    await ctx.conversation.saveTimelineEvent(
      {
        id: ctx.ids.newId('prt'),
        type: 'timeline',
        kind: 'session_fork',
        title: `Forked from ${originalSessionId}`,
        time: { created: ctx.clock.now() },
        originalSessionId,
        forkedSessionId: ctx.sessionId,
      },
      traceId,
    );
    return { announced: true };
  };

  return { commands: [fork], operations: { announce_fork: announce } };
}

/**
 * Fork (issue 12 item 4, docs/decisions/0240): `/fork <messageId>` makes a new session
 * holding a copy of the chain up to that message, through the host's replacement skeleton;
 * `session_forked` in both sessions, a fork notice for the new one's model and a
 * `session_fork` divider in its timeline.
 */
export const forkFeature: SessionFeature = { name: 'fork', attach };
