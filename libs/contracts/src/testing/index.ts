// Test kit of @agentwire/contracts: for tests only, never imported by production code.

export { parsePersistenceCommandOrThrow } from './parse-persistence-command-or-throw.ts';
export { samplePersistenceCommands } from './sample-records.ts';
export {
  SAMPLE_TRACE_ID,
  type SampleEventOverrides,
  sampleEventPayloads,
  sampleSessionEvent,
} from './samples.ts';
export { withSequenceNumber } from './with-sequence-number.ts';
