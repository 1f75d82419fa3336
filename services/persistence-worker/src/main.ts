/**
 * Entry point of the persistence worker process: `node services/persistence-worker/src/main.ts`.
 * Reads its environment (config.ts), serves /healthz, /readyz and /metrics, connects to
 * NATS and Postgres, provisions the streams, runs the migrations and consumes until
 * SIGTERM drains it (stop pulling, finish, ack, exit 0).
 */
import { backendsUp, buildServiceApp, listenServiceApp, runServiceMain } from '@agentwire/service';
import { WorkerConfig } from './config.ts';
import { startWorkerRuntime, type WorkerRuntime } from './start-worker-runtime.ts';
import { createWorkerMetrics } from './worker-metrics.ts';

const SERVICE = 'persistence-worker';

await runServiceMain({
  name: SERVICE,
  config: WorkerConfig,
  setup: ({ config, logger }) => {
    const metrics = createWorkerMetrics(SERVICE);
    const state: Record<'nats' | 'postgres' | 'consumers', string> = {
      nats: 'connecting',
      postgres: 'connecting',
      consumers: 'stopped',
    };
    let runtime: WorkerRuntime | undefined;
    const app = buildServiceApp({
      name: SERVICE,
      // 503 while NATS or Postgres is unreachable, not only before the start (issue 9).
      readiness: async () => {
        const backends = await backendsUp(runtime);
        const detail = { ...state, ...backends.detail };
        return { ok: state.consumers === 'running' && backends.up, detail };
      },
      metricsText: () => metrics.registry.render(),
      logger,
    });
    return {
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
      },
    };
  },
});
