import { QueueMode, type SetQueueModesRequest } from '@agentwire/contracts';
import type {
  FeatureContext,
  FeatureHooks,
  QueuePolicy,
  SessionFeature,
  SlashCommand,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** A session's modes before anything set them (what sessions did before lanes had modes). */
const DEFAULTS: QueuePolicy = {
  steeringMode: 'all',
  followUpMode: 'one_at_a_time',
  autoDrain: true,
};

/** The modes as the stream last stated them (R10.4), else the defaults. */
function recovered(ctx: FeatureContext): QueuePolicy {
  let policy = DEFAULTS;
  for (const e of ctx.recovered) {
    if (e.type === 'followup_mode_changed') {
      policy = {
        ...policy,
        steeringMode: e.payload.steeringMode,
        followUpMode: e.payload.followUpMode,
      };
    } else if (e.type === 'queue_auto_drain_changed') {
      policy = { ...policy, autoDrain: e.payload.enabled };
    }
  }
  return policy;
}

const USAGE = '/queue-mode [steering all|one] [followup all|one] [autodrain on|off]';

/** `all` or `one` (or `one_at_a_time`) of `/queue-mode`. */
function modeWord(word: string | undefined): QueueMode | undefined {
  if (word === 'one') return 'one_at_a_time';
  const parsed = QueueMode.safeParse(word);
  return parsed.success ? parsed.data : undefined;
}

/** `/queue-mode` arguments as a `set_queue_modes` request, or `invalid_command`. */
function parseArgs(args: string): SetQueueModesRequest {
  const words = args.toLowerCase().split(/\s+/);
  const request: { -readonly [K in keyof SetQueueModesRequest]: SetQueueModesRequest[K] } = {};
  const invalid = (why: string) =>
    new RuntimeError('invalid_command', `/queue-mode: ${why}`, {
      command: 'queue-mode',
      usage: USAGE,
    });
  for (let i = 0; i < words.length; i += 2) {
    const [key, value] = [words[i], words[i + 1]];
    if (key === 'steering' || key === 'followup') {
      const mode = modeWord(value);
      if (mode === undefined)
        throw invalid(`${key} takes all or one, not ${JSON.stringify(value ?? '')}`);
      if (key === 'steering') request.steeringMode = mode;
      else request.followUpMode = mode;
    } else if (key === 'autodrain') {
      if (value !== 'on' && value !== 'off') {
        throw invalid(`autodrain takes on or off, not ${JSON.stringify(value ?? '')}`);
      }
      request.autoDrain = value === 'on';
    } else {
      throw invalid(`unknown setting ${JSON.stringify(key)}`);
    }
  }
  return request;
}

function attach(ctx: FeatureContext): FeatureHooks {
  let policy = recovered(ctx);
  /** Applies a request: one event per kind of change, none when nothing changed. */
  const set = async (request: SetQueueModesRequest) => {
    const before = policy;
    policy = {
      steeringMode: request.steeringMode ?? before.steeringMode,
      followUpMode: request.followUpMode ?? before.followUpMode,
      autoDrain: request.autoDrain ?? before.autoDrain,
    };
    const lanes =
      policy.steeringMode !== before.steeringMode || policy.followUpMode !== before.followUpMode;
    if (lanes) {
      await ctx.emit('followup_mode_changed', {
        steeringMode: policy.steeringMode,
        followUpMode: policy.followUpMode,
        previousSteeringMode: before.steeringMode,
        previousFollowUpMode: before.followUpMode,
      });
    }
    const drain = policy.autoDrain !== before.autoDrain;
    if (drain) {
      await ctx.emit('queue_auto_drain_changed', {
        enabled: policy.autoDrain,
        reason: policy.autoDrain ? 'resumed by a user' : 'paused by a user',
      });
      // What waited while auto-drain was off starts now, when nothing runs.
      if (policy.autoDrain) ctx.wake();
    }
    return { ...policy, changed: lanes || drain };
  };
  const command: SlashCommand = {
    name: 'queue-mode',
    kind: 'direct',
    summary:
      'Show or set how queued inputs are handed over: one at a time or all at once, and auto-drain',
    usage: USAGE,
    run: async (args) => {
      if (args === '') return { kind: 'result', result: { ...policy } };
      return { kind: 'result', result: await set(parseArgs(args)) };
    },
  };
  return {
    commands: [command],
    queuePolicy: () => policy,
    operations: { set_queue_modes: (body) => set(body as SetQueueModesRequest) },
  };
}

/**
 * The queue's modes (R12.2, docs/decisions/0236): steering and followUp `all` or
 * `one_at_a_time`, and auto-drain; `/queue-mode`, the `set_queue_modes` operation, and the
 * policy the kernel's scheduler asks for.
 */
export const queueModes: SessionFeature = {
  name: 'queue-modes',
  recoversFrom: ['followup_mode_changed', 'queue_auto_drain_changed'],
  attach,
};
