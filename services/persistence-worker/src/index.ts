export { WorkerConfig } from './config.ts';
export { startWorkerRuntime, type WorkerRuntime } from './start-worker-runtime.ts';
