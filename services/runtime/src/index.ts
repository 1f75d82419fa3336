export { RuntimeConfig } from './config.ts';
export { type StartedRuntime, startRuntime } from './start-runtime.ts';
