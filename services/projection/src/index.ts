export { reduceSessionProjection } from './domain-reduce.ts';
export { PgProjectionStore } from './pg-projection-store.ts';
export { rebuildFromStream } from './rebuild-from-stream.ts';
export { type ProjectionProcess, spawnProjection } from './spawn-projection.ts';
