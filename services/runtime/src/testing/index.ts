// Test kit of the service: for tests and benches only, never imported by production code.

export { loadTranscriptRows } from '../nats/load-transcript-rows.ts';
export { uploadThread } from '../tools/checkpoint-upload-worker.ts';
export { createWorkspaceCheckpoints } from '../tools/workspace-checkpoints.ts';
export { createWorkspaceTools } from '../tools/workspace-tools.ts';
export { analyzeTranscriptTables } from './analyze-transcript-tables.ts';
export { type AppendLoad, startAppendLoad } from './append-load.ts';
export { type EventWatcher, watchEvents } from './event-watcher.ts';
export { bytesOfTurn, fileOfBytes, quantile, runLongSession } from './long-session.ts';
export { type RuntimeStack, startRuntimeStack } from './runtime-stack.ts';
export type { ServiceProcess } from './service-process.ts';
export { SERVICE_MAINS } from './service-process.ts';
export {
  durableEvents,
  loadTranscriptEntries,
  otherAnswers,
  transcriptView,
  wireSettlement,
} from './turn-settlement.ts';
export { type Follow, type RuntimeReply, WireDriver } from './wire-driver.ts';
