/**
 * Entry point of the title sidecar process: `node services/title-sidecar/src/main.ts`.
 * Reads its environment (config.ts), serves /healthz, /readyz and /metrics, connects to
 * NATS and Postgres and answers `<prefix>.titles.generate` in its queue group until
 * SIGTERM drains it (stop taking requests, finish those in flight, exit 0).
 */
import { loadConfig, runService } from '@agentwire/service';
import { createLogger, startTelemetry } from '@agentwire/telemetry';
import { TitleSidecarConfig } from './config.ts';
import { startTitleSidecar, TITLE_SIDECAR, type TitleSidecar } from './title-sidecar.ts';

const telemetry = startTelemetry({ serviceName: TITLE_SIDECAR });
const logger = createLogger({ name: TITLE_SIDECAR });
const config = (() => {
  try {
    return loadConfig(TitleSidecarConfig);
  } catch (error) {
    logger.error({ err: error }, error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
})();
let sidecar: TitleSidecar | undefined;

await runService({
  name: TITLE_SIDECAR,
  logger,
  drainTimeoutMs: config.AW_DRAIN_TIMEOUT_MS,
  start: async () => {
    sidecar = await startTitleSidecar(config, { logger });
  },
  stop: async () => {
    await sidecar?.stop();
    await telemetry.shutdown();
  },
});
