export { applyCommand } from './apply-command.ts';
export {
  type BatchHandler,
  type DeadLetter,
  type RunningBatchConsumer,
  startBatchConsumer,
} from './batch-consumer.ts';
export { commandBatchHandler } from './command-batch-handler.ts';
export { WorkerConfig } from './config.ts';
export { decodeCommandMessage } from './decode-command-message.ts';
export { decodeEventMessage } from './decode-event-message.ts';
export type { Decoded, InvalidCode } from './decoded-message.ts';
export { eventBatchHandler } from './event-batch-handler.ts';
export { type EventItem, sessionMarks } from './event-item.ts';
export {
  type PersistenceWorker,
  type PersistenceWorkerDeps,
  type PersistenceWorkerSettings,
  startPersistenceWorker,
} from './persistence-worker.ts';
export {
  startWorkerRuntime,
  type WorkerRuntime,
  type WorkerRuntimeOptions,
} from './start-worker-runtime.ts';
export { createWorkerMetrics, type WorkerMetrics } from './worker-metrics.ts';
