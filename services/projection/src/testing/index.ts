// Test kit of @agentwire/projection: for tests and benches only.
export { type GeneratedEvent, generateSessionEvents } from './generate-session-events.ts';
