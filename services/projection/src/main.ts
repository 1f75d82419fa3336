import { loadConfig, runService } from '@agentwire/service';
import { createLogger } from '@agentwire/telemetry';
import { ProjectionConfig } from './projection-config.ts';
import { type ProjectionService, startProjectionService } from './projection-service.ts';

const config = loadConfig(ProjectionConfig);
const logger = createLogger({ name: 'projection' }).child({ instance: config.INSTANCE_ID });
let service: ProjectionService | undefined;
await runService({
  name: 'projection',
  logger,
  start: async () => {
    service = await startProjectionService(config, logger);
  },
  stop: async () => {
    await service?.stop();
  },
});
