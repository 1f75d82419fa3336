// Test kit of the service: for tests and benches only, never imported by production code.
export { openSse, type SseConnection } from './sse-client.ts';
export { type Stack, startStack } from './start-stack.ts';
