/**
 * Entry point of the query service: `node services/query/src/main.ts`. Reads its
 * environment (config.ts), serves /healthz, /readyz and /metrics, connects to NATS and
 * Postgres and answers `<prefix>.query.*` in its queue group until SIGTERM drains it (stop
 * taking requests, finish those in flight, exit 0).
 */
import { runServiceMain } from '@agentwire/service';
import { QueryConfig } from './config.ts';
import { QUERY_SERVICE, type QueryService, startQueryService } from './query-service.ts';

await runServiceMain({
  name: QUERY_SERVICE,
  config: QueryConfig,
  setup: ({ config, logger }) => {
    let service: QueryService | undefined;
    return {
      start: async () => {
        service = await startQueryService(config, { logger });
      },
      stop: async () => {
        await service?.stop();
      },
    };
  },
});
