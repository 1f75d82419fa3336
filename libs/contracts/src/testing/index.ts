// Test kit of @agentwire/contracts: for tests only, never imported by production code.

export { parsePersistenceCommandOrThrow } from '../persistence/parse-persistence-command.ts';
export { withSequenceNumber } from '../session-event.ts';
export { samplePersistenceCommands } from './sample-records.ts';
export {
  SAMPLE_TRACE_ID,
  type SampleEventOverrides,
  sampleEventPayloads,
  sampleSessionEvent,
} from './samples.ts';
