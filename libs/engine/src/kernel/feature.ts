import type {
  ErrorPayload,
  EventPayload,
  EventType,
  ModelSelection,
  QueueMode,
  SessionEvent,
  SessionEventOf,
  SyntheticSource,
  TimelinePart,
  TitleSource,
  UserMessage,
  UserMessagePart,
} from '@agentwire/contracts';
import type { ModelMessage, ModelProvider } from '@agentwire/model';
import type { SessionTree } from './chain-move.ts';
import type {
  CheckpointStore,
  IdSource,
  RuntimeClock,
  SessionReplacements,
  WorkspaceFiles,
} from './ports.ts';
import type { RequestMessages } from './request-chain.ts';
import type { ToolDefinition, ToolOutput } from './tool-definition.ts';

/**
 * The engine's one extension point (issue 10, docs/decisions/0220): a feature is a module in
 * its own folder under `src/features/` that registers what it adds through this interface,
 * and `src/features/builtin-features.ts` lists it in one line. The kernel's classes never name a
 * feature. Members are added here when the first feature that needs them lands (tools,
 * turn- and step-boundary hooks, operations), so nothing here is unused.
 */
export interface SessionFeature {
  readonly name: string;
  /** Slash commands it adds (R12.1), by name without the `/`. */
  readonly commands?: readonly SlashCommand[];
  /** Commands found at run time, such as the workspace's prompt templates. */
  readonly dynamicCommands?: DynamicCommands;
  /** Rewrites a prompt before admission, e.g. `@file` references into file parts (R7.3). */
  readonly expandPrompt?: (input: PromptInput, ctx: CommandContext) => Promise<PromptInput>;
  /**
   * Event types whose last occurrence in the stream the feature's per-session state is
   * rebuilt from at cold recovery (R10.4); the loader keeps them while it replays.
   */
  readonly recoversFrom?: readonly EventType[];
  /** Event types of which every occurrence is kept for it at cold recovery, in order. */
  readonly recoversEvery?: readonly EventType[];
  /** Per-session state and hooks, made once for each resident session. */
  readonly attach?: (ctx: FeatureContext) => FeatureHooks;
}

/** What a feature's per-session part is given. */
export interface FeatureContext {
  readonly sessionId: string;
  /**
   * The last event of each `recoversFrom` type and every event of each `recoversEvery` type
   * the stream held at load, in stream order.
   */
  readonly recovered: readonly SessionEvent[];
  /**
   * Emits an event through the session's one pipeline (R5): of the given turn, or of the
   * session when no turn is given.
   */
  emit<T extends EventType>(
    type: T,
    payload: EventPayload<T>,
    turn?: { readonly turnId: string; readonly traceId: string },
  ): Promise<SessionEventOf<T>>;
  /** The models the host configured, the session's starting one first (R7.4, 0224). */
  readonly models: readonly CatalogModel[];
  /** Where workspace checkpoints go (0225); absent, none are taken. */
  readonly checkpoints: CheckpointStore | undefined;
  /** The host's clock (time comes in from outside, STYLE.md). */
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  /** The model the next request goes to: a feature's choice, else the catalog's first. */
  currentModel(): CatalogModel;
  /** The conversation the model sees, for a feature that rewrites it (compaction, 0229). */
  readonly conversation: Conversation;
  /** The session as a tree (0239); absent when the host gives no transcript reader. */
  readonly tree: SessionTree | undefined;
  /** New sessions made from this one (0240); absent when the host cannot. */
  readonly replacements: SessionReplacements | undefined;
  /** True while a turn runs. */
  turnRunning(): boolean;
  /**
   * Asks the session to look for a turn to start by itself (`whenIdle`) as soon as it is
   * idle: at once when it is, else when what runs has ended. Never starts two turns.
   */
  wake(): void;
  /**
   * A summary title of `text` from the title sidecar, written nowhere (R9.10,
   * `querySource: "goal_summary_title"`); undefined when title generation is off or the
   * sidecar failed.
   */
  summaryTitle(text: string): Promise<string | undefined>;
}

/**
 * A turn a feature starts by itself while the session is idle (docs/decisions/0231): its
 * input is a synthetic notice in the user role (R8), by default seen by the model only.
 */
export interface SyntheticTurn {
  /** What the model is told. */
  readonly notice: string;
  readonly source: SyntheticSource;
  /** What names the session when this is its first turn (R9.2), e.g. a goal's objective. */
  readonly titleInput: string;
}

/** The session's conversation as the next model request sees it (docs/decisions/0229). */
export interface Conversation {
  /** Its messages, oldest first. */
  messages(): readonly ModelMessage[];
  /**
   * Replaces the messages before `from` with `head`, keeping `from` and every message
   * appended since; the next main-turn request sends the conversation in full (0161).
   */
  replaceBefore(from: number, head: readonly ModelMessage[]): void;
  /**
   * `model_request`'s message fields for `messages`, based on the session's last
   * main-turn request when they share its start; it does not become a base itself.
   */
  requestFields(messages: readonly ModelMessage[]): RequestMessages;
  /** Appends a message the model sees from now on (a synthetic notice, R8). */
  append(message: ModelMessage): void;
  /**
   * Writes a message of the runtime's own (a compaction summary) with its parts, with the
   * given trace; resolves true once the worker committed it.
   */
  saveMessage(
    message: UserMessage,
    parts: readonly UserMessagePart[],
    traceId: string,
  ): Promise<boolean>;
  /** Writes a timeline part (R7.7) with the given trace. */
  savePart(part: TimelinePart, traceId: string): Promise<void>;
  /**
   * Writes a timeline part on an assistant message of its own whose semantics say
   * `timeline_event` (R7.7): shown in the UI, never sent to the model.
   */
  saveTimelineEvent(part: WithoutMessage<TimelinePart>, traceId: string): Promise<void>;
}

/** The turn a hook runs in. */
export interface TurnRef {
  readonly turnId: string;
  readonly traceId: string;
}

/** A tool call about to run, or that ran. */
export interface ToolCallContext {
  readonly tool: ToolDefinition;
  readonly input: unknown;
  readonly toolCallId: string;
  /** The assistant message that declared it. */
  readonly messageId: string;
  readonly turnId: string;
  readonly traceId: string;
}

/** A model the host configured: what it is, its limits, and how to call it. */
export interface CatalogModel {
  readonly selection: ModelSelection;
  /** Tokens of context it takes (from configuration). */
  readonly contextWindow: number;
  /** Most tokens it writes in one answer (from configuration). */
  readonly outputLimit: number;
  readonly provider: ModelProvider;
}

/** `Omit` over each member of a union. */
type WithoutSession<T> = T extends unknown ? Omit<T, 'sessionId'> : never;
/** `Omit` of the session and message over each member of a union. */
type WithoutMessage<T> = T extends unknown ? Omit<T, 'sessionId' | 'messageId'> : never;

/** What a turn-start hook is told, and may write. */
export interface TurnStartContext {
  readonly turnId: string;
  readonly traceId: string;
  /** The turn's user message, committed: parts may be added to it. */
  readonly userMessageId: string;
  /** The turn's start time (the host's clock). */
  readonly now: number;
  /** Writes a timeline part of the transcript (R7.7), with the turn's trace. */
  savePart(part: WithoutSession<TimelinePart>): Promise<void>;
}

/** How a tool call is let through before it runs (R1.4). */
export type ToolDecision =
  | { readonly kind: 'run' }
  | { readonly kind: 'ask' }
  | { readonly kind: 'deny'; readonly reason: string };

/** A feature's per-session hooks. */
export interface FeatureHooks {
  /** Slash commands bound to this session's state (e.g. `/mode`). */
  readonly commands?: readonly SlashCommand[];
  /**
   * Tools it offers the model besides the host's, asked at each turn's start: the turn
   * offers and runs exactly those (plan mode's `exit_plan_mode`, 0227). A name the host
   * or another feature already offers is an error.
   */
  tools?(): readonly ToolDefinition[];
  /**
   * Decides a tool call before it runs; undefined leaves it to the next feature, and
   * finally to the tool's own `needsPermission`.
   */
  decideTool?(tool: ToolDefinition): ToolDecision | undefined;
  /** The model the next request goes to; undefined leaves it to the next feature. */
  model?(): CatalogModel | undefined;
  /**
   * How the queue hands its actions over (R12.2, docs/decisions/0236), asked each time the
   * scheduler selects; undefined leaves it to the next feature, and finally to the kernel's
   * default (steering `all`, followUp `one_at_a_time`, auto-drain on).
   */
  queuePolicy?(): QueuePolicy | undefined;
  /** Called once a turn's user message committed, before its first model request. */
  onTurnStart?(turn: TurnStartContext): Promise<void>;
  /** Before a turn that ran its steps completes (its `turn_complete`): what must be durable by then. */
  onTurnEnd?(turn: TurnRef): Promise<void>;
  /**
   * Called when a main-turn model step failed (R16.2 `model_error`); true asks the turn to
   * send the step once more (reactive compaction, 0229). A turn retries once at most.
   */
  onModelError?(error: ErrorPayload, turn: TurnRef): Promise<boolean>;
  /** Called right before a tool runs (its permission granted); a throw fails the call. */
  beforeTool?(call: ToolCallContext): Promise<void>;
  /**
   * Called after a tool ran, whether it succeeded or failed; `output` is what it returned,
   * undefined when it failed.
   */
  afterTool?(call: ToolCallContext, output: ToolOutput | undefined): Promise<void>;
  /** Told every event of the session as it is appended. */
  onEvent?(event: SessionEvent): void;
  /**
   * True while the feature runs session-level work outside any turn (a `/compact`): the
   * scheduler selects nothing then, and a submission waits in the queue (R12.5,
   * docs/decisions/0235). The feature calls `ctx.wake()` when it is done.
   */
  busy?(): boolean;
  /**
   * Asked when the session is idle (no turn runs, nothing is queued): after a turn ended
   * with nothing queued behind it, and after a feature's `wake()`. A turn returned starts at
   * once, unless a submission took the session meanwhile; then the hook is asked again
   * when that turn has ended. One feature's hook runs at a time. Undefined (not a promise)
   * says at once that the feature has nothing to do, so an idle session stays idle.
   */
  whenIdle?(): Promise<SyntheticTurn | undefined> | undefined;
  /**
   * Operations it answers on `aw.rt.<sid>.<name>`, by name; the host validates the body
   * with the operation's contract schema first and replies with what it returns.
   */
  readonly operations?: Readonly<
    Record<string, (body: unknown) => Promise<Readonly<Record<string, unknown>>>>
  >;
}

/** How the two lanes hand their actions over, and whether queued inputs start by themselves. */
export interface QueuePolicy {
  readonly steeringMode: QueueMode;
  readonly followUpMode: QueueMode;
  readonly autoDrain: boolean;
}

/** How a submission that names this command is handled (R12.1). */
type CommandKind =
  /** Run at once, never sent to the model (`/help`, `/status`, `/rename`). */
  | 'direct'
  /** Expands into a prompt (`/name args` from `.agentwire/prompts/<name>.md`). */
  | 'template'
  /**
   * A session-level command (`/compact`, `/rewind`, R12.1): run at once when the session is
   * idle, else queued as an action and run at the turn boundary (docs/decisions/0238).
   */
  | 'session';

/** What `/help` says of a command. */
export interface CommandInfo {
  readonly name: string;
  readonly kind: CommandKind;
  readonly summary: string;
  /** How it is written, e.g. `/rename <title>`. */
  readonly usage: string;
}

/** What a command did: a result for the submitter, or the prompt it stands for. */
type CommandOutcome =
  | { readonly kind: 'result'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly kind: 'prompt'; readonly text: string };

/** A slash command. `args` is the text after the name, trimmed. */
export interface SlashCommand extends CommandInfo {
  run(args: string, ctx: CommandContext): Promise<CommandOutcome>;
}

/** Commands that exist only when the workspace has them. */
interface DynamicCommands {
  resolve(name: string, ctx: CommandContext): Promise<SlashCommand | undefined>;
  list(ctx: CommandContext): Promise<readonly CommandInfo[]>;
}

/** A file a prompt refers to, carried as a file part of its user message (R7.3). */
export interface InputFile {
  /** Relative to the workspace root. */
  readonly path: string;
  readonly mime: string;
  readonly text: string;
  /** Size in bytes (UTF-8). */
  readonly bytes: number;
}

/** A submission normalised into a real prompt: its text and the files it refers to. */
export interface PromptInput {
  readonly text: string;
  /** Distinct, sorted by path: the same input always gives the same model content. */
  readonly files: readonly InputFile[];
}

/** What the session says of itself to `/status`. */
export interface SessionStatus {
  readonly sessionId: string;
  readonly title: string | null;
  readonly titleSource: TitleSource | null;
  readonly persisted: boolean;
  readonly turnCount: number;
  readonly activeTurnId: string | null;
  readonly pendingInputIds: readonly string[];
}

/** What a command or an expansion may use of its session. */
export interface CommandContext {
  readonly sessionId: string;
  /** The session's workspace; absent when the host gives none (then no file is read). */
  readonly workspace: WorkspaceFiles | undefined;
  /** Every command the session knows now, sorted by name. */
  commands(): Promise<readonly CommandInfo[]>;
  status(): SessionStatus;
  rename(title: string): Promise<void>;
  /** True when nothing runs or waits: a session-level command runs at once (0238). */
  idle(): boolean;
}
