export * from './apply-durable-events.ts';
export * from './apply-message-commands.ts';
export * from './batch-writes.ts';
export * from './canonical-dump.ts';
export * from './create-database.ts';
export * from './durable-events.ts';
export * from './entries-repository.ts';
export * from './errors.ts';
export * from './goal-verification-divider.ts';
export { isReachable } from './is-reachable.ts';
export * from './ledger-repository.ts';
export * from './messages-repository.ts';
export * from './migrate.ts';
export * from './persistence-commands.ts';
export * from './processed-messages.ts';
export {
  type DeletedSession,
  deleteSessionRows,
  type HistoryPage,
  type HistoryStart,
  listSessionPage,
  readHistoryPage,
  readSessionMarks,
  type SessionKey,
  type SessionMarks,
  type SessionPageQuery,
  type SessionPageRow,
  type StoredMessage,
  setSessionArchived,
} from './read-side.ts';
export * from './schema.ts';
export * from './session-sequence.ts';
export * from './sessions-repository.ts';
export { inTransaction } from './transaction.ts';
