// Test kit of the service: for tests and benches only, never imported by production code.

export { analyzeTranscriptTables } from './analyze-transcript-tables.ts';
export { type AppendLoad, startAppendLoad } from './append-load.ts';
export { type EventWatcher, watchEvents } from './event-watcher.ts';
export { type RuntimeStack, startRuntimeStack } from './runtime-stack.ts';
export type { ServiceProcess } from './service-process.ts';
export {
  durableEvents,
  loadTranscriptEntries,
  otherAnswers,
  transcriptView,
  wireSettlement,
} from './turn-settlement.ts';
export type { Follow, RuntimeReply, WireDriver } from './wire-driver.ts';
