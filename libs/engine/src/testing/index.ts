// Test kit of the engine: fakes of its ports and a session harness (not for production).
export { countingIds, RecordingLogger, RecordingWriter, steppingClock } from './fake-ports.ts';
export { memoryWorkspace } from './memory-workspace.ts';
export { createSessionHarness } from './session-harness.ts';
export { startTurn } from './start-turn.ts';
export { collapsedTypes, TWO_TOOLS_TURN_TYPES } from './two-tools-turn.ts';
