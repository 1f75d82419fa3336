import { DEFAULT_PREFIX, TITLE_TIMEOUT_DEFAULT_MS } from '@agentwire/contracts';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * The title sidecar's environment (DESIGN.md "Processes": zod-validated). Every instance
 * with the same `AW_PREFIX` joins the same queue group and shares the requests.
 */
export const TitleSidecarConfig = z
  .object({
    NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    /** Subject prefix (DESIGN.md "Names"). */
    AW_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'must be one subject token')
      .default(DEFAULT_PREFIX),
    /** Connection and application name; defaults to `title-sidecar-<pid>`. */
    INSTANCE_ID: z.string().min(1).optional(),
    /** HTTP port of /healthz, /readyz, /metrics; 0 picks an ephemeral port (logged). */
    HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    HTTP_HOST: z.string().min(1).default('0.0.0.0'),
    /** Model timeout of one title request (R9.6, R16.5: 60 s by default, configurable). */
    AW_TITLE_TIMEOUT_MS: positiveInt(TITLE_TIMEOUT_DEFAULT_MS),
    /** A request body larger than this is answered `payload_too_large` unread. */
    AW_TITLE_MAX_REQUEST_BYTES: positiveInt(256 * 1024),
    /** The default title model: `scripted` (local runs, tests) or an OpenAI-compatible API. */
    AW_MODEL_PROVIDER: z.enum(['scripted', 'openai-compatible']).default('scripted'),
    AW_MODEL_BASE_URL: z.string().url().optional(),
    AW_MODEL_API_KEY: z.string().optional(),
    AW_MODEL_ID: z.string().min(1).optional(),
    /** Provider id a request's `modelSelection` names to reach the OpenAI-compatible API. */
    AW_MODEL_PROVIDER_ID: z.string().min(1).default('openai-compatible'),
    /** Output limit of the default model, when known: the request asks min(5000, it). */
    AW_MODEL_OUTPUT_LIMIT: z.coerce.number().int().positive().optional(),
    /** Postgres connection pool size. */
    AW_PG_POOL_SIZE: positiveInt(4),
    /** How long SIGTERM may take; above the model timeout, so in-flight requests finish. */
    AW_DRAIN_TIMEOUT_MS: positiveInt(TITLE_TIMEOUT_DEFAULT_MS + 15_000),
  })
  .refine(
    (c) =>
      c.AW_MODEL_PROVIDER === 'scripted' ||
      (c.AW_MODEL_BASE_URL !== undefined && c.AW_MODEL_ID !== undefined),
    {
      message: 'AW_MODEL_PROVIDER=openai-compatible needs AW_MODEL_BASE_URL and AW_MODEL_ID',
      path: ['AW_MODEL_BASE_URL'],
    },
  );
/** The title sidecar's parsed configuration. */
export type TitleSidecarConfig = z.infer<typeof TitleSidecarConfig>;
