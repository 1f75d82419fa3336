/** Test helpers: a valid sample payload and event for every type. */
export { createEvent } from './create-event.ts';
export {
  EVENT_PAYLOAD_SCHEMAS,
  type EventPayload,
  type EventPayloadMap,
} from './event-payloads.ts';
export {
  type DurableEventType,
  EVENT_TYPES,
  type EventType,
  isDurableEventType,
  isEventType,
  isTransientEventType,
} from './event-types.ts';
export {
  type FrameProblem,
  type FrameProblemCode,
  FrameReader,
  type FrameReaderOptions,
  type FrameReading,
  type SseMessage,
} from './frames/frame-reader.ts';
export {
  DEFAULT_MAX_FRAME_BYTES,
  EventsFrameData,
  encodeEventsFrame,
  encodeSnapshotFrame,
  FragmentFrameData,
  MIN_MAX_FRAME_BYTES,
  SnapshotFrameData,
} from './frames/sse-frame.ts';
export { LedgerStatus } from './ledger.ts';
export { AssistantMessage, Message, MessageTokens, UserMessage } from './messages/message.ts';
export { MessageSemantics } from './messages/message-semantics.ts';
export { eventIdOfMessageId, NumberWitness } from './number-witness.ts';
export {
  decodeSessionEvent,
  parseSessionEvent,
  parseSessionEventOrThrow,
} from './parse-session-event.ts';
export { Part } from './parts/part.ts';
export { TimelinePart } from './parts/timeline-part.ts';
export { normalizeToolName } from './parts/tool-name.ts';
export {
  TOOL_COMPLETION_SCHEMA_VERSION,
  ToolCompletionMetadata,
  ToolPart,
  ToolState,
} from './parts/tool-part.ts';
export { BackgroundTaskUpdatedPayload } from './payloads/background.ts';
export {
  contextTokensOf,
  EpochMs,
  ErrorPayload,
  JsonValue,
  ModelSelection,
  ModelUsage,
  SessionMode,
  SyntheticSource,
  TitleSource,
} from './payloads/common.ts';
export { QueueMode, SteerDiscardReason, SteerRejectReason } from './payloads/input-queue.ts';
export {
  ModelCompletePayload,
  ModelRequestBase,
  ModelRequestMessage,
  ModelRequestPayload,
  ModelStreamingPayload,
} from './payloads/model.ts';
export { PermissionDecision, RiskLevel } from './payloads/permission.ts';
export { Target, TargetVerification } from './payloads/target.ts';
export { EarlyTurnEnd } from './payloads/turn.ts';
export { nextCommandVersion } from './persistence/command-version.ts';
export { decodePersistenceCommand } from './persistence/parse-persistence-command.ts';
export {
  EnsureSessionCommand,
  type PersistenceCommand,
  type PersistenceCommandKind,
  type PersistenceCommandOf,
  SavePartCommand,
  UserMessagePart,
} from './persistence/persistence-command.ts';
export {
  PersistenceConfirmation,
  PersistenceOutcome,
} from './persistence/persistence-confirmation.ts';
export {
  ActiveToolCall,
  ActiveToolCallStatus,
  BackgroundTaskState,
  DEFAULT_CONTEXT_WINDOW,
  PendingPermission,
  PendingSteerInput,
  SessionProjection,
  SessionStatus,
} from './projection.ts';
export {
  ArchiveReply,
  ArchiveRequest,
  DeleteReply,
  DeleteRequest,
  ExportReply,
  ExportRequest,
  ExportWireReply,
  HistoryMessage,
  HistoryReply,
  HistoryRequest,
  isQueryOp,
  ListSessionsReply,
  ListSessionsRequest,
  QUERY_QUEUE_GROUP,
  QueryCursor,
  QueryErrorCode,
  QueryErrorReply,
  QueryLimit,
  type QueryOp,
  QuerySessionId,
  SessionSummary,
} from './query-protocol.ts';
export {
  ClearInputsReply,
  EditInputRequest,
  type InputOp,
  isInputOp,
  MoveInputRequest,
  QueueModesReply,
  RemoveInputReply,
  RemoveInputRequest,
  ReorderInputsReply,
  ReorderInputsRequest,
  SetQueueModesRequest,
} from './queue-protocol.ts';
export {
  AckReply,
  ActionState,
  AnswerPermissionRequest,
  AwaitTicketRequest,
  CommandPromptReply,
  CreateReply,
  EmptyRequest,
  ErrorReply,
  InterruptReply,
  isCommandPromptReply,
  isQueuedPromptReply,
  isRuntimeOp,
  OpenReply,
  OpenRequest,
  ProjectionGetReply,
  ProjectionGetRequest,
  PromptReply,
  PromptRequest,
  QueuedPromptReply,
  RenameReply,
  RenameRequest,
  RuntimeErrorCode,
  type RuntimeOp,
  SetModeReply,
  SetModeRequest,
  TICKET_WAIT_MAX_MS,
  TicketReply,
} from './runtime-protocol.ts';
export {
  EventEnvelope,
  type SessionEvent,
  type SessionEventOf,
  SessionId,
} from './session-event.ts';
export { DEFAULT_PREFIX, HEADERS, type Names, names } from './subjects.ts';
export {
  cutTitleInput,
  TITLE_INPUT_MAX_CHARS,
  TITLE_QUEUE_GROUP,
  TITLE_STORE_RETRY_DEFAULT_MS,
  TITLE_SYSTEM_PROMPT,
  TITLE_TIMEOUT_DEFAULT_MS,
  TitleCompletion,
  TitleDropReason,
  TitleError,
  TitleModel,
  TitleReply,
  TitleRequest,
  titleModelMessages,
  titleOutputLimit,
} from './title-protocol.ts';
export {
  formatTranscript,
  type ParsedTranscript,
  parseTranscript,
  TRANSCRIPT_FORMAT,
  TRANSCRIPT_INLINE_BYTES,
  TRANSCRIPT_MAX_BYTES,
  type TranscriptEntry,
  type TranscriptFileError,
  TranscriptHeader,
} from './transcript/transcript-file.ts';
export {
  ChainMoveResult,
  CheckpointListing,
  ForkRequest,
  ForkResult,
  RewindRequest,
  SessionCommandReply,
  TreeEntryId,
  TreeListing,
  TreeRequest,
} from './tree-protocol.ts';
