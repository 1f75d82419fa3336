// Test kit of the engine: fakes of its ports and a session harness (not for production).
export {
  countingIds,
  RecordingLogger,
  RecordingPublisher,
  RecordingWriter,
  steppingClock,
  type WriterCall,
} from './fake-ports.ts';
export { FakeTitles, titleReply } from './fake-titles.ts';
export { memoryTools } from './memory-tools.ts';
export {
  createSessionHarness,
  type SessionHarness,
  type SessionHarnessOptions,
} from './session-harness.ts';
export { startTurn } from './start-turn.ts';
export { collapsedTypes, TWO_TOOLS_TURN_TYPES } from './two-tools-turn.ts';
