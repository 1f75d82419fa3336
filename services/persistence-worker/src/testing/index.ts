// Test kit of @agentwire/persistence-worker: for tests only, never imported by production code.
export { publishAll, publishWorkItem } from './publish-work-item.ts';
export { createScratchDatabase, dropScratchDatabase } from './scratch-database.ts';
export { consumerBacklogs, waitForConsumersIdle } from './wait-for-consumers.ts';
export { generateWorkload, type WorkItem } from './workload.ts';
