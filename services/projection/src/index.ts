export type { ApplierStats } from './applier-stats.ts';
export { reduceSessionProjection } from './domain-reduce.ts';
export { PgProjectionStore } from './pg-projection-store.ts';
export { rebuildFromStream } from './rebuild-from-stream.ts';
export { type ProjectionProcess, spawnProjection } from './spawn-projection.ts';
export type { StuckSession } from './stuck-session.ts';
