import type {
  ProjectionSnapshotReply,
  RequestOptions,
  RuntimeResult,
  SessionFollower,
} from '@agentwire/bus';
import type {
  AckReply,
  AnswerPermissionRequest,
  ClearInputsReply,
  EmptyRequest,
  InterruptReply,
  OpenReply,
  PromptReply,
  PromptRequest,
  QueueModesReply,
  RemoveInputReply,
  RenameReply,
  ReorderInputsReply,
  SessionCommandReply,
  SetModeReply,
  SetModeRequest,
  SetQueueModesRequest,
  TicketReply,
} from '@agentwire/contracts';

/**
 * What the gateway needs from the bus: the runtime's operations, projection queries and
 * session following. `RuntimeClient` of `@agentwire/bus` implements it; unit tests pass a
 * fake.
 */
export interface GatewayBackend {
  open(sessionId?: string, options?: RequestOptions): Promise<RuntimeResult<OpenReply>>;
  prompt(
    sessionId: string,
    request: PromptRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<PromptReply>>;
  interrupt(
    sessionId: string,
    request: EmptyRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<InterruptReply>>;
  rename(
    sessionId: string,
    title: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<RenameReply>>;
  answerPermission(
    sessionId: string,
    answer: AnswerPermissionRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<AckReply>>;
  removeInput(
    sessionId: string,
    inputId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<RemoveInputReply>>;
  reorderInputs(
    sessionId: string,
    orderedInputIds: readonly string[],
    options?: RequestOptions,
  ): Promise<RuntimeResult<ReorderInputsReply>>;
  moveInput(
    sessionId: string,
    inputId: string,
    position: number,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ReorderInputsReply>>;
  awaitTicket(
    sessionId: string,
    ticketId: string,
    until: 'delivered' | 'completed',
    timeoutMs?: number,
  ): Promise<RuntimeResult<TicketReply>>;
  setMode(
    sessionId: string,
    mode: SetModeRequest['mode'],
    options?: RequestOptions,
  ): Promise<RuntimeResult<SetModeReply>>;
  editInput(
    sessionId: string,
    inputId: string,
    text: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<RemoveInputReply>>;
  clearInputs(
    sessionId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ClearInputsReply>>;
  setQueueModes(
    sessionId: string,
    modes: SetQueueModesRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<QueueModesReply>>;
  /** `/rewind [target]` (0225, 0239): the checkpoints, or back to one or to a message. */
  rewind(
    sessionId: string,
    target?: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<SessionCommandReply>>;
  /** `/tree [messageId]` (0239): the branches, or a move to a message of any of them. */
  tree(
    sessionId: string,
    messageId?: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<SessionCommandReply>>;
  /** `/fork <messageId>` (0240): a new session holding the chain up to that message. */
  fork(
    sessionId: string,
    messageId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<SessionCommandReply>>;
  /**
   * A transcript file (an export's, 0241) as a new session; `invalid_transcript` or
   * `transcript_too_large` naming the line, and nothing written.
   */
  importSession(transcript: string, options?: RequestOptions): Promise<RuntimeResult<OpenReply>>;
  /** Ends the session (`session_ended`) and releases its lease, so it can be deleted. */
  close(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<AckReply>>;
  projection(
    sessionId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ProjectionSnapshotReply>>;
  /** True when the session left a trace that can be followed. */
  knows(sessionId: string): Promise<boolean>;
  /** The session `sessionId` was forked from, as its first event says; undefined if none. */
  forkOrigin(sessionId: string): Promise<string | undefined>;
  /**
   * Replays the session after `afterSequence`, then tails it (R15.1); the iteration throws
   * the bus's `base_expired` error when the base is outside the retained window.
   */
  follow(sessionId: string, afterSequence: number): SessionFollower;
}
