// The session engine (docs/decisions/0151): the kernel the runtime wires to NATS and Postgres.

export { builtinFeatures } from './features/builtin-features.ts';
export { AppendError } from './kernel/append-error.ts';
export { EventAppender } from './kernel/event-appender.ts';
export { EventNumbering } from './kernel/event-numbering.ts';
export type { CatalogModel, SessionFeature } from './kernel/feature.ts';
export {
  historyFromTranscript,
  type TranscriptPart,
  type TranscriptRow,
} from './kernel/history-from-transcript.ts';
export { chainedWriter, MessageChain } from './kernel/message-chain.ts';
export { recoveryTypes } from './kernel/normalise-submission.ts';
export { type TurnScan, TurnScanner } from './kernel/open-turn.ts';
export type {
  CheckpointStore,
  ContentHasher,
  EventPublisher,
  ForkRequest,
  IdSource,
  PublishOutcome,
  RuntimeClock,
  RuntimeLogger,
  SessionReplacements,
  SessionSink,
  TranscriptReader,
  TreeMessage,
  UsageRecorder,
  WorkspaceFileFailure,
  WorkspaceFiles,
  WorkspaceRewind,
} from './kernel/ports.ts';
export { discardLeftoverInputs, reconcileOpenTurn } from './kernel/reconcile-open-turn.ts';
export type { LastRequest } from './kernel/request-chain.ts';
export { RuntimeError } from './kernel/runtime-error.ts';
export { RuntimeSession } from './kernel/runtime-session.ts';
export { SessionEmitter } from './kernel/session-emitter.ts';
export type { SessionStart } from './kernel/session-options.ts';
export type { Admission } from './kernel/submission.ts';
export type { TitleGenerator, TitleGeneratorResult } from './kernel/title-job.ts';
export {
  type FileWritten,
  type ToolDefinition,
  ToolError,
  type ToolOutput,
} from './kernel/tool-definition.ts';
export type {
  ConfirmedWrite,
  SessionRecord,
  TranscriptWriter,
  UserMessageWrite,
  WriteContext,
} from './kernel/transcript-writer.ts';
export type { TurnOutcome } from './kernel/turn-runner.ts';
