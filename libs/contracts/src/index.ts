export * from './create-event.ts';
export * from './event-parse-error.ts';
export * from './event-payloads.ts';
export * from './event-types.ts';
export * from './issues.ts';
export * from './ledger.ts';
export * from './messages/message.ts';
export * from './messages/message-semantics.ts';
export { eventIdOfMessageId, NumberWitness } from './number-witness.ts';
export * from './parse-session-event.ts';
export * from './parts/part.ts';
export * from './parts/part-base.ts';
export * from './parts/parts.ts';
export * from './parts/timeline-part.ts';
export * from './parts/tool-name.ts';
export * from './parts/tool-part.ts';
export * from './parts/tool-part-status.ts';
export * from './payloads/background.ts';
export * from './payloads/common.ts';
export * from './payloads/compaction.ts';
export * from './payloads/control.ts';
export * from './payloads/hooks.ts';
export * from './payloads/input-queue.ts';
export * from './payloads/messages.ts';
export * from './payloads/model.ts';
export * from './payloads/permission.ts';
export * from './payloads/rewind-checkpoint.ts';
export * from './payloads/session.ts';
export * from './payloads/subagent.ts';
export * from './payloads/target.ts';
export * from './payloads/tools.ts';
export * from './payloads/turn.ts';
export * from './persistence/command-version.ts';
export * from './persistence/parse-persistence-command.ts';
export * from './persistence/persistence-command.ts';
export * from './persistence/persistence-command-parse-error.ts';
export * from './persistence/persistence-confirmation.ts';
export * from './ports/session-event-store.ts';
export * from './ports/session-store-port.ts';
export * from './projection.ts';
export {
  ArchiveReply,
  ArchiveRequest,
  DeleteReply,
  DeleteRequest,
  HistoryMessage,
  HistoryReply,
  HistoryRequest,
  isQueryOp,
  ListSessionsReply,
  ListSessionsRequest,
  MAX_QUERY_LIMIT,
  QUERY_OPS,
  QUERY_QUEUE_GROUP,
  QueryCursor,
  QueryErrorCode,
  QueryErrorReply,
  QueryLimit,
  type QueryOp,
  QuerySessionId,
  SessionSummary,
} from './query-protocol.ts';
export * from './runtime-protocol.ts';
export * from './session-entry.ts';
export * from './session-event.ts';
export * from './session-record.ts';
export * from './subjects.ts';
export * from './testing/sample-records.ts';
/** Test helpers: a valid sample payload and event for every type. */
export * from './testing/samples.ts';
export * from './title-protocol.ts';
