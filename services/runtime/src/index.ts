export { RuntimeConfig } from './config.ts';
export { startRuntime } from './start-runtime.ts';
