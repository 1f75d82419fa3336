import type {
  AssistantMessage,
  EnsureSessionCommand,
  Part,
  PersistenceOutcome,
  TitleSource,
  UserMessage,
  UserMessagePart,
} from '@agentwire/contracts';

/** Facts of a session row born lazily at its first persistence (R13.2, R9.2). */
export type SessionRecord = EnsureSessionCommand['session'] & { readonly sessionId: string };

/** Outcome of writing the user message: whether its commit was confirmed, and the command. */
export interface UserMessageWrite {
  readonly committed: boolean;
  /**
   * Why it is not committed: the worker `refused` it (the ledger row is no longer
   * admitted), or no confirmation came after every republish (`unconfirmed`).
   */
  readonly failure?: 'refused' | 'unconfirmed';
  /** The persistence command's id (`session_input_promoted.sourceCommandId`). */
  readonly commandId: string;
}

/**
 * Outcome of a session-row write that waits for its commit (the row, a title): the
 * worker's outcome once confirmed (`applied`, `duplicate` when already so, or
 * `condition_failed` when the title's compare-and-set did not hold), or not confirmed in
 * time (the command stays queued and may still apply). `republished`: the confirmation
 * answered a republished command, so a `duplicate` may be the first publish's own effect.
 */
export type ConfirmedWrite =
  | {
      readonly confirmed: true;
      readonly outcome: PersistenceOutcome;
      readonly republished: boolean;
    }
  | { readonly confirmed: false };

/** Every write carries the number of the event it goes with and the turn's trace. */
export interface WriteContext {
  readonly sequence: number;
  readonly traceId: string;
}

/**
 * The runtime's persistence port (R1.3, R7): messages and parts are written in the same
 * code path that emits the events (R7.1), in the shapes of `@agentwire/contracts`. The
 * service implements it with persistence commands on the bus; unit tests record the calls.
 * Each call resolves once the bus accepted the write; `saveUserMessage`, `ensureSession`
 * and `updateTitle` resolve once the write is committed (flow 1): nothing written after the
 * session row is published before the row is visible, and a title event follows its
 * commit (docs/decisions/0130).
 */
export interface TranscriptWriter {
  ensureSession(session: SessionRecord, ctx: WriteContext): Promise<ConfirmedWrite>;
  saveUserMessage(
    message: UserMessage,
    parts: readonly UserMessagePart[],
    ctx: WriteContext & { readonly promoteInputId?: string },
  ): Promise<UserMessageWrite>;
  saveAssistantMessage(message: AssistantMessage, ctx: WriteContext): Promise<void>;
  savePart(part: Part, ctx: WriteContext): Promise<void>;
  updateTitle(
    update: { readonly sessionId: string; readonly title: string; readonly source: TitleSource },
    ctx: WriteContext,
  ): Promise<ConfirmedWrite>;
  /** R9.9: the first question was rewound away; no generated title applies any more. */
  markFirstInputRewound(ctx: WriteContext): Promise<void>;
}
