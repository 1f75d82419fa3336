/**
 * Entry point of the runtime process: `node services/runtime/src/main.ts`. Reads its
 * environment (config.ts), serves /healthz, /readyz and /metrics, connects to NATS and
 * Postgres, provisions, and hosts sessions until SIGTERM: it then stops accepting,
 * interrupts running turns, waits for them to end and releases its leases.
 */
import { backendsUp, buildServiceApp, listenServiceApp, runServiceMain } from '@agentwire/service';
import { RuntimeConfig } from './config.ts';
import { createRuntimeMetrics } from './runtime-metrics.ts';
import { type StartedRuntime, startRuntime } from './start-runtime.ts';

const SERVICE = 'runtime';

await runServiceMain({
  name: SERVICE,
  config: RuntimeConfig,
  setup: ({ config, logger }) => {
    const metrics = createRuntimeMetrics(SERVICE);
    let runtime: StartedRuntime | undefined;
    const app = buildServiceApp({
      name: SERVICE,
      // 503 while NATS or Postgres is unreachable, not only before the start (issue 9).
      readiness: async () => {
        const backends = await backendsUp(runtime);
        return {
          ok: runtime?.host.accepting === true && backends.up,
          detail: {
            instanceId: runtime?.instanceId ?? null,
            resident: runtime?.host.residentSessionIds.length ?? 0,
            ...backends.detail,
          },
        };
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
        runtime = await startRuntime(config, logger, metrics.usage, {
          residencyMetrics: metrics.residency,
        });
        const started = runtime;
        metrics.observeResident(() => started.host.residentSessionIds.length);
      },
      stop: async () => {
        await runtime?.stop();
        await app.close();
        await metrics.registry.shutdown();
      },
    };
  },
});
