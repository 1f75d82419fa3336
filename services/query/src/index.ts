export { QueryConfig } from './config.ts';
export { startQueryService } from './query-service.ts';
