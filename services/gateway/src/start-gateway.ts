import { connectBus, QueryClient, RuntimeClient } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { listenServiceApp } from '@agentwire/service';
import type { Logger } from '@agentwire/telemetry';
import { gatewayAuthFrom } from './auth/gateway-auth-from-config.ts';
import { buildApp } from './build-app.ts';
import type { GatewayConfig } from './config.ts';
import { createGatewayMetrics } from './gateway-metrics.ts';
import { SseHub } from './sse-hub.ts';
import { webAppDir } from './web-app.ts';

/** A started gateway: its drain. */
export interface StartedGateway {
  /** Stops being ready, ends every SSE stream cleanly, closes HTTP and drains NATS. */
  stop(): Promise<void>;
}

const SERVICE = 'gateway';

/**
 * Starts a gateway from its configuration (the same shape as every service's `start*`):
 * connects to NATS, builds the app ({@link buildApp}) over a `RuntimeClient` and a
 * `QueryClient`, and listens on `HTTP_PORT`.
 */
export async function startGateway(
  config: GatewayConfig,
  { logger }: { readonly logger: Logger },
): Promise<StartedGateway> {
  const hub = new SseHub();
  const metrics = createGatewayMetrics(SERVICE, hub);
  let draining = false;
  const bus = await connectBus({
    servers: config.NATS_URL,
    auth: config,
    name: `gateway-${process.pid}`,
    logger,
  });
  const auth = await gatewayAuthFrom(config, bus.nc);
  const webDir = webAppDir(config.AW_WEB_DIR);
  logger.info({ webDir: webDir ?? 'none' }, 'gateway web client');
  logger.info({ auth: config.AW_GATEWAY_AUTH }, 'gateway authentication');
  const timeout = { timeoutMs: config.AW_GATEWAY_REQUEST_TIMEOUT_MS };
  const app = buildApp({
    ...(auth === undefined ? {} : { auth }),
    rateLimitPerMinute: config.AW_GATEWAY_RATE_LIMIT,
    backend: new RuntimeClient(bus, names(config.AW_PREFIX), timeout),
    query: new QueryClient(bus, names(config.AW_PREFIX), timeout),
    hub,
    metrics,
    logger,
    readiness: () => ({
      ok: !draining && bus.connected,
      detail: { nats: bus.connected ? 'up' : 'down', draining, sseStreams: hub.size },
    }),
    bodyLimit: config.AW_GATEWAY_BODY_LIMIT,
    requestTimeoutMs: config.AW_GATEWAY_REQUEST_TIMEOUT_MS,
    waitTimeoutMs: config.AW_GATEWAY_WAIT_TIMEOUT_MS,
    heartbeatMs: config.AW_GATEWAY_HEARTBEAT_MS,
    maxFrameBytes: config.AW_SSE_MAX_FRAME_BYTES,
    corsOrigins: config.AW_GATEWAY_CORS_ORIGINS,
    ...(webDir === undefined ? {} : { webDir }),
  });
  try {
    await listenServiceApp(app, {
      name: SERVICE,
      port: config.HTTP_PORT,
      host: config.HTTP_HOST,
      logger,
    });
  } catch (err) {
    await bus.close();
    throw err;
  }
  return {
    stop: async () => {
      draining = true;
      const open = hub.size;
      await app.close();
      logger.info({ sseStreams: open }, 'gateway closed its sse streams and http server');
      await bus.close();
      await metrics.registry.shutdown();
    },
  };
}
