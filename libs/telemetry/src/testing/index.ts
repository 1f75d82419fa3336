// Test kit of @agentwire/telemetry: for tests only, never imported by production code.
export { installContextPropagation } from './context-propagation.ts';
