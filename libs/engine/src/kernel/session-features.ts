import type { SessionEvent, TimelinePart } from '@agentwire/contracts';
import type { ModelMessage, ModelProvider } from '@agentwire/model';
import { sessionTree } from './chain-move.ts';
import type {
  CatalogModel,
  CommandContext,
  Conversation,
  SessionFeature,
  SessionStatus,
} from './feature.ts';
import type { MessageChain } from './message-chain.ts';
import {
  FeatureSet,
  type NormalisedSubmission,
  normaliseSubmission,
} from './normalise-submission.ts';
import type {
  CheckpointStore,
  IdSource,
  RuntimeClock,
  SessionReplacements,
  TranscriptReader,
  WorkspaceFiles,
} from './ports.ts';
import type { RequestChain } from './request-chain.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** Limits of a model given without a catalog (tests, a bare host). */
const DEFAULT_CONTEXT_WINDOW = 200_000;
const DEFAULT_OUTPUT_LIMIT = 8_192;

/** What a session gives its features (docs/decisions/0220). */
export interface SessionFeaturesOptions {
  readonly features: readonly SessionFeature[];
  readonly emitter: SessionEmitter;
  readonly ids: IdSource;
  readonly clock: RuntimeClock;
  /** The session's starting model, first in the catalog when none is given. */
  readonly model: ModelProvider;
  readonly models?: readonly CatalogModel[] | undefined;
  readonly checkpoints?: CheckpointStore | undefined;
  readonly workspace?: WorkspaceFiles | undefined;
  /** The events the features recover from, as the loader kept them (R10.4). */
  readonly recovered: readonly SessionEvent[];
  /** The session as its commands see it. */
  readonly status: () => SessionStatus;
  readonly rename: (title: string) => Promise<void>;
  /** The conversation the model sees, appended to in place. */
  readonly history: ModelMessage[];
  readonly requests: RequestChain;
  readonly writer: TranscriptWriter;
  /** Where the session stands in its tree (0239). */
  readonly chain: MessageChain;
  /** The stored transcript, read back (0239); without it the session has no tree commands. */
  readonly transcripts?: TranscriptReader | undefined;
  /** New sessions made from this one (0240). */
  readonly replacements?: SessionReplacements | undefined;
  /** The session's working directory and workspace root (a timeline message's `path`). */
  readonly cwd: string;
  readonly root: string;
  readonly turnRunning: () => boolean;
  /** Nothing runs or waits (a session-level command runs at once, 0238). */
  readonly idle: () => boolean;
  /** Asks the session to run its idle check (`FeatureContext.wake`). */
  readonly wake: () => void;
  /** A summary title from the sidecar (`FeatureContext.summaryTitle`). */
  readonly summaryTitle: (text: string) => Promise<string | undefined>;
}

/** The session's conversation as features see it (docs/decisions/0229). */
function conversationOf(o: SessionFeaturesOptions): Conversation {
  const sequence = () => o.emitter.appender.latestSequence;
  return {
    messages: () => o.history,
    replaceBefore: (from, head) => {
      o.history.splice(0, from, ...head);
    },
    requestFields: (messages) => o.requests.next(messages).fields,
    append: (message) => {
      o.history.push(message);
    },
    saveMessage: async (message, parts, traceId) => {
      const write = await o.writer.saveUserMessage(message, parts, {
        sequence: sequence(),
        traceId,
      });
      return write.committed;
    },
    savePart: (part: TimelinePart, traceId) =>
      o.writer.savePart(part, { sequence: sequence(), traceId }),
    saveTimelineEvent: async (part, traceId) => {
      const sessionId = o.emitter.sessionId;
      const messageId = o.ids.newId('msg');
      const now = o.clock.now();
      const write = { sequence: sequence(), traceId };
      await o.writer.saveAssistantMessage(
        {
          id: messageId,
          sessionId,
          role: 'assistant',
          time: { created: now, completed: now },
          parentId: o.chain.leaf ?? messageId,
          providerId: o.model.providerId,
          modelId: o.model.modelId,
          mode: 'build',
          agent: 'build',
          path: { cwd: o.cwd, root: o.root },
          cost: 0,
          tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          semantics: {
            origin: 'agent_runtime',
            kind: 'timeline_event',
            uiVisibility: 'visible',
            providerVisibility: 'hidden',
            transcriptVisibility: 'visible',
          },
        },
        write,
      );
      await o.writer.savePart({ ...part, sessionId, messageId } as TimelinePart, write);
    },
  };
}

/**
 * One session's features, attached (docs/decisions/0220): the glue between the kernel's
 * `RuntimeSession` and the features' hooks, so the session class stays the kernel's. It
 * normalises submissions, runs direct commands and feature operations by name, and hands
 * out the hooks (`set`).
 */
export class SessionFeatures {
  /** The attached features, whose hooks the session calls. */
  readonly set: FeatureSet;
  readonly #o: SessionFeaturesOptions;

  constructor(o: SessionFeaturesOptions) {
    this.#o = o;
    const sessionId = o.emitter.sessionId;
    const models = o.models ?? [
      {
        selection: { providerId: o.model.providerId, modelId: o.model.modelId },
        contextWindow: DEFAULT_CONTEXT_WINDOW,
        outputLimit: DEFAULT_OUTPUT_LIMIT,
        provider: o.model,
      },
    ];
    const conversation = conversationOf(o);
    this.set = new FeatureSet(o.features, {
      sessionId,
      recovered: o.recovered,
      emit: (type, payload, turn) =>
        o.emitter.emit(type, turn?.turnId ?? null, turn?.traceId ?? o.ids.newTraceId(), payload),
      checkpoints: o.checkpoints,
      clock: o.clock,
      ids: o.ids,
      models,
      currentModel: () => this.set.model() ?? (models[0] as CatalogModel),
      conversation,
      replacements: o.replacements,
      tree:
        o.transcripts === undefined
          ? undefined
          : sessionTree({
              sessionId,
              chain: o.chain,
              reader: o.transcripts,
              conversation,
              ids: o.ids,
              clock: o.clock,
              markFirstInputRewound: (traceId) =>
                o.writer.markFirstInputRewound({
                  sequence: o.emitter.appender.latestSequence,
                  traceId,
                }),
            }),
      turnRunning: o.turnRunning,
      wake: o.wake,
      summaryTitle: o.summaryTitle,
    });
  }

  /** R12.1: a submission as a command run at once or a prompt (see `normaliseSubmission`). */
  normalise(
    text: string,
    options: { readonly promptOnly?: boolean } = {},
  ): Promise<NormalisedSubmission> {
    return normaliseSubmission(text, this.set, this.#context(), options);
  }

  /**
   * Runs a direct command by name, as an operation does (`set_mode` is `/mode <mode>`).
   * Returns its result; an unknown name or a template is `unknown_command`.
   */
  async runCommand(name: string, args: string): Promise<Readonly<Record<string, unknown>>> {
    const ctx = this.#context();
    const command = await this.set.resolve(name, ctx);
    if (command === undefined || command.kind === 'template') {
      throw new RuntimeError('unknown_command', `no direct command /${name}`, { command: name });
    }
    const outcome = await command.run(args, ctx);
    if (outcome.kind !== 'result') throw new Error(`/${name} gave a prompt`);
    return outcome.result;
  }

  /**
   * Runs an operation a feature answers, with a body the host already validated;
   * `unknown_op` when no feature answers it.
   */
  async runOperation(name: string, body: unknown): Promise<Readonly<Record<string, unknown>>> {
    const op = this.set.operation(name);
    if (op === undefined)
      throw new RuntimeError('unknown_op', `no operation ${name}`, { op: name });
    return op(body);
  }

  /** What the session's commands and expansions may use of it. */
  #context(): CommandContext {
    const ctx: CommandContext = {
      sessionId: this.#o.emitter.sessionId,
      workspace: this.#o.workspace,
      commands: () => this.set.list(ctx),
      status: this.#o.status,
      rename: this.#o.rename,
      idle: this.#o.idle,
    };
    return ctx;
  }
}
