/**
 * Entry point of the gateway: `node services/gateway/src/main.ts`. Reads its environment
 * (config.ts), connects to NATS, serves the session routes, the SSE follow route and
 * /healthz, /readyz, /metrics on HTTP_PORT (8080 by default); on SIGTERM it stops being
 * ready, ends every SSE stream cleanly, closes the HTTP server and drains its NATS connection.
 */
import { type BusConnection, connectBus, QueryClient, RuntimeClient } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { listenServiceApp, runServiceMain } from '@agentwire/service';
import type { FastifyInstance } from 'fastify';
import { gatewayAuthFrom } from './auth/gateway-auth-from-config.ts';
import { buildApp } from './build-app.ts';
import { GatewayConfig } from './config.ts';
import { createGatewayMetrics } from './gateway-metrics.ts';
import { SseHub } from './sse-hub.ts';
import { webAppDir } from './web-app.ts';

const SERVICE = 'gateway';

await runServiceMain({
  name: SERVICE,
  config: GatewayConfig,
  setup: ({ config, logger }) => {
    const hub = new SseHub();
    const metrics = createGatewayMetrics(SERVICE, hub);
    let bus: BusConnection | undefined;
    let app: FastifyInstance | undefined;
    let draining = false;
    return {
      start: async () => {
        bus = await connectBus({
          servers: config.NATS_URL,
          auth: config,
          name: `gateway-${process.pid}`,
          logger,
        });
        const connected = bus;
        const auth = await gatewayAuthFrom(config, connected.nc);
        const webDir = webAppDir(config.AW_WEB_DIR);
        logger.info({ webDir: webDir ?? 'none' }, 'gateway web client');
        logger.info({ auth: config.AW_GATEWAY_AUTH }, 'gateway authentication');
        app = buildApp({
          ...(auth === undefined ? {} : { auth }),
          rateLimitPerMinute: config.AW_GATEWAY_RATE_LIMIT,
          backend: new RuntimeClient(connected, names(config.AW_PREFIX), {
            timeoutMs: config.AW_GATEWAY_REQUEST_TIMEOUT_MS,
          }),
          query: new QueryClient(connected, names(config.AW_PREFIX), {
            timeoutMs: config.AW_GATEWAY_REQUEST_TIMEOUT_MS,
          }),
          hub,
          metrics,
          logger,
          readiness: () => ({
            ok: !draining && connected.connected,
            detail: { nats: connected.connected ? 'up' : 'down', draining, sseStreams: hub.size },
          }),
          bodyLimit: config.AW_GATEWAY_BODY_LIMIT,
          requestTimeoutMs: config.AW_GATEWAY_REQUEST_TIMEOUT_MS,
          waitTimeoutMs: config.AW_GATEWAY_WAIT_TIMEOUT_MS,
          heartbeatMs: config.AW_GATEWAY_HEARTBEAT_MS,
          maxFrameBytes: config.AW_SSE_MAX_FRAME_BYTES,
          corsOrigins: config.AW_GATEWAY_CORS_ORIGINS,
          ...(webDir === undefined ? {} : { webDir }),
        });
        await listenServiceApp(app, {
          name: SERVICE,
          port: config.HTTP_PORT,
          host: config.HTTP_HOST,
          logger,
        });
      },
      stop: async () => {
        draining = true;
        const open = hub.size;
        await app?.close();
        logger.info({ sseStreams: open }, 'gateway closed its sse streams and http server');
        await bus?.close();
        await metrics.registry.shutdown();
      },
    };
  },
});
