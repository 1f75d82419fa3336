/**
 * Entry point of the gateway: `node services/gateway/src/main.ts`. Reads its environment
 * (config.ts), connects to NATS, serves the session routes, the SSE follow route and
 * /healthz, /readyz, /metrics on HTTP_PORT (8080 by default); on SIGTERM it stops being
 * ready, ends every SSE stream cleanly, closes the HTTP server and drains its NATS connection.
 */
import { runServiceMain } from '@agentwire/service';
import { GatewayConfig } from './config.ts';
import { type StartedGateway, startGateway } from './start-gateway.ts';

await runServiceMain({
  name: 'gateway',
  config: GatewayConfig,
  setup: ({ config, logger }) => {
    let gateway: StartedGateway | undefined;
    return {
      start: async () => {
        gateway = await startGateway(config, { logger });
      },
      stop: async () => {
        await gateway?.stop();
      },
    };
  },
});
