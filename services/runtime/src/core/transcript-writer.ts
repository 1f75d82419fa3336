/**
 * The persistence port of the runtime (R1.3, R7): messages and parts are written in the
 * same code path that emits the events (R7.1). The service implements it with persistence
 * commands on the bus; unit tests record the calls. Records follow R16.4's shapes.
 */

/** R7.8 semantics of a message. */
export interface MessageSemantics {
  readonly origin: 'real_user' | 'agent_runtime' | 'system' | 'migration' | 'import';
  readonly kind: 'user_prompt' | 'assistant_response' | 'timeline_event' | 'system_reminder';
  readonly uiVisibility: 'visible' | 'hidden' | 'debug';
  readonly providerVisibility: 'visible' | 'hidden';
  readonly transcriptVisibility: 'visible' | 'hidden';
}

/** R7.8 anchor of a message. */
export interface MessageAnchor {
  readonly turnId?: string;
  readonly origin?: 'realUser' | 'backgroundResult' | 'goalContinuation' | 'mailbox' | 'synthetic';
  readonly sourceCommandId?: string;
}

/** A user message (R16.4). */
export interface UserMessageRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly role: 'user';
  readonly time: { readonly created: number };
  readonly agent: string;
  readonly semantics: MessageSemantics;
  readonly anchor: MessageAnchor;
}

/** Token counts of an assistant message (R16.4, R7.4). */
export interface MessageTokens {
  readonly input: number;
  readonly output: number;
  readonly reasoning: number;
  readonly cache: { readonly read: number; readonly write: number };
}

/** An assistant message, one per model step (R7.4, R16.4). */
export interface AssistantMessageRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly role: 'assistant';
  readonly time: { readonly created: number; readonly completed?: number };
  readonly error?: { readonly type: string; readonly message: string; readonly code?: string };
  readonly parentId: string;
  readonly providerId: string;
  readonly modelId: string;
  readonly mode: string;
  readonly agent: string;
  readonly path: { readonly cwd: string; readonly root: string };
  readonly cost: number;
  readonly tokens: MessageTokens;
  readonly finish?: string;
  readonly semantics: MessageSemantics;
  readonly anchor: MessageAnchor;
}

/** Status of a tool part (R7.5). */
export type ToolPartStatus = 'pending' | 'running' | 'completed' | 'error';

/** A tool part's state as it moves pending -> running -> completed | error (R7.5). */
export interface ToolPartState {
  readonly status: ToolPartStatus;
  readonly input: unknown;
  readonly output?: string;
  readonly error?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly time?: { readonly start?: number; readonly end?: number };
}

/** A part (R7.2); the runtime writes `text`, `reasoning` and `tool`. */
export type PartRecord =
  | {
      readonly id: string;
      readonly sessionId: string;
      readonly messageId: string;
      readonly type: 'text' | 'reasoning';
      readonly text: string;
    }
  | {
      readonly id: string;
      readonly sessionId: string;
      readonly messageId: string;
      readonly type: 'tool';
      readonly callId: string;
      /** `empty_tool_name` when the model sent none (R7.6). */
      readonly tool: string;
      readonly state: ToolPartState;
    };

/** Facts of a session row born lazily at its first persistence (R13.2, R9.2). */
export interface SessionRecord {
  readonly sessionId: string;
  readonly cwd: string;
  readonly root: string;
  readonly title: string;
  readonly titleSource: 'first_input';
  readonly firstInput: string;
  readonly createdAt: number;
}

/** Every write carries the number of the event it goes with (the high-water mark). */
export interface WriteContext {
  readonly sequence: number;
  readonly traceId: string;
}

/** The runtime's persistence port. Each call resolves once the write is accepted by the bus. */
export interface TranscriptWriter {
  ensureSession(session: SessionRecord, ctx: WriteContext): Promise<void>;
  /** Resolves once the write is committed (flow 1); `promoteInputId` marks a ledger row promoted (R7.3). */
  saveUserMessage(
    message: UserMessageRecord,
    parts: readonly PartRecord[],
    ctx: WriteContext & { readonly promoteInputId?: string },
  ): Promise<void>;
  saveAssistantMessage(message: AssistantMessageRecord, ctx: WriteContext): Promise<void>;
  savePart(part: PartRecord, ctx: WriteContext): Promise<void>;
  updateTitle(
    update: {
      readonly sessionId: string;
      readonly title: string;
      readonly source: 'first_input' | 'custom';
    },
    ctx: WriteContext,
  ): Promise<void>;
}
