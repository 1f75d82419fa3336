/**
 * Entry point of a projection instance: `node services/projection/src/main.ts`. Reads its
 * environment (projection-config.ts), serves /healthz, /readyz, /metrics and the projection
 * routes, and applies session events until SIGTERM drains it.
 */
import { runServiceMain } from '@agentwire/service';
import { ProjectionConfig } from './projection-config.ts';
import { type ProjectionService, startProjectionService } from './projection-service.ts';

await runServiceMain({
  name: 'projection',
  config: ProjectionConfig,
  setup: ({ config, logger }) => {
    let service: ProjectionService | undefined;
    return {
      start: async () => {
        service = await startProjectionService(
          config,
          logger.child({ instance: config.AW_INSTANCE_ID }),
        );
      },
      stop: async () => {
        await service?.stop();
      },
    };
  },
});
