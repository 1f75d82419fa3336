import { DEFAULT_PREFIX } from '@agentwire/contracts';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The gateway's environment (DESIGN.md "Processes": zod-validated). */
export const GatewayConfig = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  AW_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be one subject token')
    .default(DEFAULT_PREFIX),
  /** HTTP port; 0 picks an ephemeral one (logged as `gateway http listening`). */
  AW_GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  AW_GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** Largest accepted request body, bytes; larger ones get 413. */
  AW_GATEWAY_BODY_LIMIT: positiveInt(256 * 1024),
  /** How long a runtime or projection request may take before 504, ms. */
  AW_GATEWAY_REQUEST_TIMEOUT_MS: positiveInt(15_000),
  /** How long `prompt` with `wait: true` may take before 504, ms. */
  AW_GATEWAY_WAIT_TIMEOUT_MS: positiveInt(300_000),
  /** Interval of the SSE heartbeat comments, ms. */
  AW_GATEWAY_HEARTBEAT_MS: positiveInt(15_000),
  AW_DRAIN_TIMEOUT_MS: positiveInt(10_000),
});
/** The gateway's parsed configuration. */
export type GatewayConfig = z.infer<typeof GatewayConfig>;
