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
