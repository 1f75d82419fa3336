import { BaseServiceConfig, positiveInt } from '@agentwire/service';
import type { z } from 'zod';

/**
 * The gateway's environment (DESIGN.md "Processes": zod-validated): the shared variables of
 * `BaseServiceConfig`, with `HTTP_PORT` defaulting to the public 8080 (0 picks an ephemeral
 * port, logged as `gateway http listening`), and its own `AW_GATEWAY_*` settings.
 */
export const GatewayConfig = BaseServiceConfig.extend({
  HTTP_PORT: BaseServiceConfig.shape.HTTP_PORT.removeDefault().default(8080),
  /** Largest accepted request body, bytes; larger ones get 413. */
  AW_GATEWAY_BODY_LIMIT: positiveInt(256 * 1024),
  /** How long a runtime or projection request may take before 504, ms. */
  AW_GATEWAY_REQUEST_TIMEOUT_MS: positiveInt(15_000),
  /** How long `prompt` with `wait: true` may take before 504, ms. */
  AW_GATEWAY_WAIT_TIMEOUT_MS: positiveInt(300_000),
  /** Interval of the SSE heartbeat comments, ms. */
  AW_GATEWAY_HEARTBEAT_MS: positiveInt(15_000),
});
/** The gateway's parsed configuration. */
export type GatewayConfig = z.infer<typeof GatewayConfig>;
