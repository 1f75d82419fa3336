export { answerQuery, type QueryDeps, type QueryReply } from './answer-query.ts';
export { QueryConfig } from './config.ts';
export {
  createQueryMetrics,
  QUERY_ATTRS,
  QUERY_METRICS,
  type QueryMetrics,
} from './query-metrics.ts';
export {
  QUERY_SERVICE,
  type QueryService,
  type QueryServiceDeps,
  startQueryService,
} from './query-service.ts';
export { type SeedOptions, seededMessageId, seedLongSession } from './testing/seed-history.ts';
/** Test helper: the query service as its own process. */
export { QUERY_MAIN, spawnQuery } from './testing/spawn-query.ts';
