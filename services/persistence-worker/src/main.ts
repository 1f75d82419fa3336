/**
 * Entry point of the persistence worker process: `node services/persistence-worker/src/main.ts`.
 * Reads its environment (config.ts), serves /healthz, /readyz and /metrics, connects to
 * NATS and Postgres, provisions the streams, runs the migrations and consumes until
 * SIGTERM drains it (stop pulling, finish, ack, exit 0).
 */
import { buildServiceApp, listenServiceApp, loadConfig, runService } from '@agentwire/service';
import { createLogger, startTelemetry } from '@agentwire/telemetry';
import { WorkerConfig } from './config.ts';
import { startWorkerRuntime, type WorkerRuntime } from './start-worker-runtime.ts';
import { createWorkerMetrics } from './worker-metrics.ts';

const SERVICE = 'persistence-worker';
const telemetry = startTelemetry({ serviceName: SERVICE });
const logger = createLogger({ name: SERVICE });
const config = (() => {
  try {
    return loadConfig(WorkerConfig);
  } catch (error) {
    logger.error({ err: error }, error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
})();
const metrics = createWorkerMetrics(SERVICE);
const state: Record<'nats' | 'postgres' | 'consumers', string> = {
  nats: 'connecting',
  postgres: 'connecting',
  consumers: 'stopped',
};
const app = buildServiceApp({
  name: SERVICE,
  readiness: () => ({ ok: state.consumers === 'running', detail: state }),
  metricsText: () => metrics.registry.render(),
  logger,
});
let runtime: WorkerRuntime | undefined;

await runService({
  name: SERVICE,
  logger,
  drainTimeoutMs: config.AW_DRAIN_TIMEOUT_MS,
  start: async () => {
    await listenServiceApp(app, {
      name: SERVICE,
      port: config.HTTP_PORT,
      host: config.HTTP_HOST,
      logger,
    });
    runtime = await startWorkerRuntime({
      config,
      logger,
      metrics,
      onState: (part, value) => {
        state[part] = value;
      },
    });
  },
  stop: async () => {
    await runtime?.stop();
    await app.close();
    await metrics.registry.shutdown();
    await telemetry.shutdown();
  },
});
