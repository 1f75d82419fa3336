import { DEFAULT_PREFIX } from '@agentwire/contracts';
import { z } from 'zod';

/** Default of `NATS_URL`: the local server of the README's Quick start. */
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/**
 * Default of `DATABASE_URL`: the `agentwire` database that `npm start` creates.
 *
 * @internal Exported for its tests.
 */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/agentwire';

/** The pino levels `LOG_LEVEL` accepts. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A positive integer environment variable with a default (milliseconds, sizes, counts). */
export const positiveInt = (fallback: number) =>
  z.coerce.number().int().positive().default(fallback);

/** A subject-token-safe name (prefix, durable consumer, instance id). */
export const token = () => z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be one subject token');

/**
 * The variables every service reads, with the same defaults and validation everywhere
 * (DESIGN.md "Processes"; docs/decisions/0100). A service's own schema extends it:
 * `BaseServiceConfig.extend(DatabaseConfig.shape).extend({ AW_...: ... })`. Service-specific
 * variables carry the `AW_` prefix.
 */
export const BaseServiceConfig = z.object({
  /** NATS server(s), comma-separated. */
  NATS_URL: z.string().min(1).default(DEFAULT_NATS_URL),
  /** Subject, stream and bucket prefix (DESIGN.md "Names"). */
  AW_PREFIX: token().default(DEFAULT_PREFIX),
  /** Port of `/healthz`, `/readyz`, `/metrics` (and the service's routes); 0 = ephemeral, logged. */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Interface the HTTP server binds. */
  HTTP_HOST: z.string().min(1).default('0.0.0.0'),
  /** pino level of the service's log. */
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** How long SIGTERM may take to drain before the process exits 1 anyway. */
  AW_DRAIN_TIMEOUT_MS: positiveInt(30_000),
  /**
   * Replicas of every stream and bucket the services provision (runtime, persistence worker,
   * projection): 1 on one server, 3 on a three-node JetStream cluster (docs/decisions/0143).
   */
  AW_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * NATS credentials, one way at most (docs/decisions/0145): a user of the generated
   * `deploy/nats/users.conf` and its password, an nkey seed, or a JWT `.creds` file.
   */
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_NKEY_SEED: z.string().min(1).optional(),
  NATS_CREDS_FILE: z.string().min(1).optional(),
  /** Inbox prefix the user's permissions allow (default `_INBOX_<NATS_USER>`). */
  NATS_INBOX_PREFIX: token().optional(),
});
export type BaseServiceConfig = z.infer<typeof BaseServiceConfig>;

/** The Postgres connection of the services that need one. */
export const DatabaseConfig = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default(DEFAULT_DATABASE_URL),
});
export type DatabaseConfig = z.infer<typeof DatabaseConfig>;

/**
 * The model a service calls (the runtime's turns, the title sidecar's default model): the
 * scripted provider, or an OpenAI-compatible endpoint. Compose with `.extend(...shape)` and
 * finish with `.refine(hasModelEndpoint, MODEL_ENDPOINT_REQUIRED)`.
 */
export const ModelProviderConfig = z.object({
  AW_MODEL_PROVIDER: z.enum(['scripted', 'openai-compatible']).default('scripted'),
  AW_MODEL_BASE_URL: z.string().url().optional(),
  AW_MODEL_API_KEY: z.string().optional(),
  AW_MODEL_ID: z.string().min(1).optional(),
});

/** True unless an OpenAI-compatible provider is chosen without its endpoint and model. */
export function hasModelEndpoint(c: z.infer<typeof ModelProviderConfig>): boolean {
  return (
    c.AW_MODEL_PROVIDER === 'scripted' ||
    (c.AW_MODEL_BASE_URL !== undefined && c.AW_MODEL_ID !== undefined)
  );
}

/** The start-up error of a config that fails {@link hasModelEndpoint}. */
export const MODEL_ENDPOINT_REQUIRED = {
  message: 'AW_MODEL_PROVIDER=openai-compatible needs AW_MODEL_BASE_URL and AW_MODEL_ID',
  path: ['AW_MODEL_BASE_URL'],
};
