export { applyDurableEvents } from './apply-durable-events.ts';
export {
  applyMessageCommands,
  applyUserMessageAlone,
  isMessageCommand,
  type MessageCommand,
  type MessageCommandResult,
} from './apply-message-commands.ts';
export { type CopyTranscriptResult, copyTranscript } from './copy-transcript.ts';
export { createDatabase } from './create-database.ts';
export type { DurableEvent } from './durable-events.ts';
export { classifyPgError, StoreError, toStoreError } from './errors.ts';
export { isReachable } from './is-reachable.ts';
export { closeInput, getInput, listInputs } from './ledger-repository.ts';
export { loadTranscript } from './messages-repository.ts';
export { migrate } from './migrate.ts';
export { importMessages } from './persistence-commands.ts';
export {
  type ChainRuns,
  MAX_CHAIN_RUNS,
  readHistoryPage,
  type StoredMessage,
} from './read-history.ts';
export {
  deleteSessionRows,
  listSessionPage,
  readSessionMarks,
  type SessionPageRow,
  setSessionArchived,
} from './read-side.ts';
export { readTranscript, type StoredTranscript } from './read-transcript.ts';
export type { Database } from './schema.ts';
export { getLastSequence } from './session-sequence.ts';
export {
  ensureSession,
  getSession,
  markFirstInputEdited,
  type UpdateTitleOutcome,
  updateTitle,
} from './sessions-repository.ts';
export { inTransaction, withStoreError } from './transaction.ts';
