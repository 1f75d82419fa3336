import type { ErrorPayload, SessionEvent } from '@agentwire/contracts';
import type {
  CatalogModel,
  CommandContext,
  CommandInfo,
  FeatureContext,
  FeatureHooks,
  PromptInput,
  QueuePolicy,
  SessionFeature,
  SlashCommand,
  SyntheticTurn,
  ToolCallContext,
  ToolDecision,
  TurnRef,
  TurnStartContext,
} from './feature.ts';
import { RuntimeError } from './runtime-error.ts';
import type { ToolDefinition, ToolOutput } from './tool-definition.ts';

/** The queue's policy when no feature sets one: what sessions did before lanes had modes. */
const DEFAULT_QUEUE_POLICY: QueuePolicy = {
  steeringMode: 'all',
  followUpMode: 'one_at_a_time',
  autoDrain: true,
};

/** `/name` or `/name args`: a name starts with a letter; `/usr/bin/ls` is not a command. */
const COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/**
 * The event types the features rebuild their per-session state from (R10.4): those of
 * which the last occurrence is kept, and those of which every one is.
 */
export function recoveryTypes(features: readonly SessionFeature[]): {
  readonly last: ReadonlySet<string>;
  readonly every: ReadonlySet<string>;
} {
  return {
    last: new Set(features.flatMap((f) => f.recoversFrom ?? [])),
    every: new Set(features.flatMap((f) => f.recoversEvery ?? [])),
  };
}

/**
 * One session's features (docs/decisions/0220): their commands and expansions, looked up
 * by name, and the per-session hooks each attached. Two features registering one name is a
 * programming error, caught at start.
 */
export class FeatureSet {
  readonly #features: readonly SessionFeature[];
  readonly #commands = new Map<string, SlashCommand>();
  readonly #hooks: FeatureHooks[] = [];

  constructor(features: readonly SessionFeature[], ctx?: FeatureContext) {
    this.#features = features;
    for (const feature of features) {
      const hooks = ctx === undefined ? undefined : feature.attach?.(ctx);
      if (hooks !== undefined) this.#hooks.push(hooks);
      for (const command of [...(feature.commands ?? []), ...(hooks?.commands ?? [])]) {
        if (this.#commands.has(command.name)) {
          throw new Error(`feature ${feature.name}: command /${command.name} is registered twice`);
        }
        this.#commands.set(command.name, command);
      }
    }
  }

  /** True while any feature runs session-level work outside a turn (R12.5). */
  busy(): boolean {
    return this.#hooks.some((hooks) => hooks.busy?.() === true);
  }

  /** The queue's policy: the first feature's, else the kernel's default (R12.2, 0236). */
  queuePolicy(): QueuePolicy {
    for (const hooks of this.#hooks) {
      const policy = hooks.queuePolicy?.();
      if (policy !== undefined) return policy;
    }
    return DEFAULT_QUEUE_POLICY;
  }

  /** The model the next request goes to, if a feature chose one (R7.4). */
  model(): CatalogModel | undefined {
    for (const hooks of this.#hooks) {
      const model = hooks.model?.();
      if (model !== undefined) return model;
    }
    return undefined;
  }

  /**
   * The tools a turn offers: the host's, then each feature's of the moment. A name offered
   * twice is a programming error of the host's configuration, thrown.
   */
  tools(host: ReadonlyMap<string, ToolDefinition>): ReadonlyMap<string, ToolDefinition> {
    let merged: Map<string, ToolDefinition> | undefined;
    for (const hooks of this.#hooks) {
      for (const tool of hooks.tools?.() ?? []) {
        merged ??= new Map(host);
        if (merged.has(tool.name)) throw new Error(`tool ${tool.name} is offered twice`);
        merged.set(tool.name, tool);
      }
    }
    return merged ?? host;
  }

  /** Tells every feature an appended event. */
  eventAppended(event: SessionEvent): void {
    for (const hooks of this.#hooks) hooks.onEvent?.(event);
  }

  /** The operation a feature answers by `name`, or undefined. */
  operation(
    name: string,
  ): ((body: unknown) => Promise<Readonly<Record<string, unknown>>>) | undefined {
    for (const hooks of this.#hooks) {
      const op = hooks.operations?.[name];
      if (op !== undefined) return op;
    }
    return undefined;
  }

  /** True when a feature recovered from a failed step, which the turn then sends again. */
  /** Runs every feature's turn-end hook, in registration order. */
  async turnEnding(turn: TurnRef): Promise<void> {
    for (const hooks of this.#hooks) await hooks.onTurnEnd?.(turn);
  }

  async modelErrored(error: ErrorPayload, turn: TurnRef): Promise<boolean> {
    for (const hooks of this.#hooks) {
      if ((await hooks.onModelError?.(error, turn)) === true) return true;
    }
    return false;
  }

  /** Runs every feature's before-tool hook, in registration order. */
  async beforeTool(call: ToolCallContext): Promise<void> {
    for (const hooks of this.#hooks) await hooks.beforeTool?.(call);
  }

  /** Runs every feature's after-tool hook, in registration order. */
  async afterTool(call: ToolCallContext, output: ToolOutput | undefined): Promise<void> {
    for (const hooks of this.#hooks) await hooks.afterTool?.(call, output);
  }

  /**
   * The first turn a feature's idle hook asks for, in registration order; undefined at once
   * when no feature has anything to do.
   */
  whenIdle(from = 0): Promise<SyntheticTurn | undefined> | undefined {
    for (let i = from; i < this.#hooks.length; i += 1) {
      const asked = this.#hooks[i]?.whenIdle?.();
      if (asked !== undefined) return asked.then((turn) => turn ?? this.whenIdle(i + 1));
    }
    return undefined;
  }

  /** Runs every feature's turn-start hook, in registration order. */
  async turnStarted(turn: TurnStartContext): Promise<void> {
    for (const hooks of this.#hooks) await hooks.onTurnStart?.(turn);
  }

  /** The first feature's decision on a tool call, else the tool's own flag (R1.4). */
  decideTool(tool: ToolDefinition): ToolDecision {
    for (const hooks of this.#hooks) {
      const decision = hooks.decideTool?.(tool);
      if (decision !== undefined) return decision;
    }
    return { kind: tool.needsPermission ? 'ask' : 'run' };
  }

  /** The command called `name`: a registered one first, then the dynamic ones in order. */
  async resolve(name: string, ctx: CommandContext): Promise<SlashCommand | undefined> {
    const known = this.#commands.get(name);
    if (known !== undefined) return known;
    for (const feature of this.#features) {
      const found = await feature.dynamicCommands?.resolve(name, ctx);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Every command known now, sorted by name; a registered one hides a dynamic namesake. */
  async list(ctx: CommandContext): Promise<readonly CommandInfo[]> {
    const byName = new Map<string, CommandInfo>();
    for (const feature of this.#features) {
      for (const info of (await feature.dynamicCommands?.list(ctx)) ?? []) {
        byName.set(info.name, info);
      }
    }
    for (const { name, kind, summary, usage } of this.#commands.values()) {
      byName.set(name, { name, kind, summary, usage });
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Runs every feature's prompt expansion, in registration order. */
  async expand(input: PromptInput, ctx: CommandContext): Promise<PromptInput> {
    let current = input;
    for (const feature of this.#features) {
      if (feature.expandPrompt !== undefined) current = await feature.expandPrompt(current, ctx);
    }
    return current;
  }
}

/** A submission, normalised (R12.1). */
export type NormalisedSubmission =
  | {
      readonly kind: 'command';
      readonly command: string;
      readonly result: Readonly<Record<string, unknown>>;
    }
  /** A session-level command while the session is busy: queued as an action (0238). */
  | { readonly kind: 'action'; readonly command: string; readonly args: string }
  | { readonly kind: 'prompt'; readonly input: PromptInput };

/**
 * R12.1: a submission becomes a slash command run at once, or a real prompt. A template
 * command gives the prompt it stands for, which is then expanded like any other (`@file`
 * references become file parts). An unknown command is refused with `unknown_command`
 * listing the known ones; it never reaches the model. With `promptOnly` (an edit of a
 * waiting input), a direct command is refused before it runs.
 */
export async function normaliseSubmission(
  text: string,
  features: FeatureSet,
  ctx: CommandContext,
  options: { readonly promptOnly?: boolean } = {},
): Promise<NormalisedSubmission> {
  let prompt = text;
  const match = COMMAND.exec(text.trim());
  if (match !== null) {
    const name = (match[1] ?? '').toLowerCase();
    const command = await features.resolve(name, ctx);
    if (command === undefined) {
      const known = (await features.list(ctx)).map((c) => c.name);
      throw new RuntimeError(
        'unknown_command',
        `unknown command /${name}; known commands: ${known.map((n) => `/${n}`).join(', ')}`,
        { command: name, known },
      );
    }
    if (options.promptOnly === true && (command.kind === 'direct' || command.kind === 'session')) {
      throw new RuntimeError(
        'invalid_command',
        `/${name} runs at once; only a prompt or a template can stand here`,
        { command: name, usage: command.usage },
      );
    }
    const args = (match[2] ?? '').trim();
    if (command.kind === 'session' && !ctx.idle()) return { kind: 'action', command: name, args };
    const outcome = await command.run(args, ctx);
    if (outcome.kind === 'result')
      return { kind: 'command', command: name, result: outcome.result };
    prompt = outcome.text;
  }
  return { kind: 'prompt', input: await features.expand({ text: prompt, files: [] }, ctx) };
}
