import { TITLE_STORE_RETRY_DEFAULT_MS, TITLE_TIMEOUT_DEFAULT_MS } from '@agentwire/contracts';
import {
  BaseServiceConfig,
  DatabaseConfig,
  hasModelEndpoint,
  MODEL_ENDPOINT_REQUIRED,
  ModelProviderConfig,
  positiveInt,
} from '@agentwire/service';
import { z } from 'zod';

/**
 * The title sidecar's environment (DESIGN.md "Processes": zod-validated): the shared
 * variables of `BaseServiceConfig` and `DatabaseConfig`, and its own `AW_*` settings. Every instance
 * with the same `AW_PREFIX` joins the same queue group and shares the requests.
 */
export const TitleSidecarConfig = BaseServiceConfig.extend(DatabaseConfig.shape)
  .extend(ModelProviderConfig.shape)
  .extend({
    /** Connection and application name; defaults to `title-sidecar-<pid>`. */
    AW_INSTANCE_ID: z.string().min(1).optional(),
    /** Model timeout of one title request (R9.6, R16.5: 60 s by default, configurable). */
    AW_TITLE_TIMEOUT_MS: positiveInt(TITLE_TIMEOUT_DEFAULT_MS),
    /** A request body larger than this is answered `payload_too_large` unread. */
    AW_TITLE_MAX_REQUEST_BYTES: positiveInt(256 * 1024),
    /** The default title model: `scripted` (local runs, tests) or an OpenAI-compatible API. */
    /** Provider id a request's `modelSelection` names to reach the OpenAI-compatible API. */
    AW_MODEL_PROVIDER_ID: z.string().min(1).default('openai-compatible'),
    /** Output limit of the default model, when known: the request asks min(5000, it). */
    AW_MODEL_OUTPUT_LIMIT: z.coerce.number().int().positive().optional(),
    /** Postgres connection pool size. */
    AW_PG_POOL_SIZE: positiveInt(4),
    /**
     * How long a store call that failed retryably (a Postgres restart) is retried, from its
     * first attempt, before the request answers `store_error` (issue 9, item 5). 0: never.
     */
    AW_TITLE_STORE_RETRY_MS: z.coerce.number().int().min(0).default(TITLE_STORE_RETRY_DEFAULT_MS),
    /**
     * How long SIGTERM may take: unlike the shared 30 s default, above the model timeout and
     * the store's retries, so in-flight requests finish.
     */
    AW_DRAIN_TIMEOUT_MS: positiveInt(
      TITLE_TIMEOUT_DEFAULT_MS + TITLE_STORE_RETRY_DEFAULT_MS + 15_000,
    ),
  })
  .refine(hasModelEndpoint, MODEL_ENDPOINT_REQUIRED);
export type TitleSidecarConfig = z.infer<typeof TitleSidecarConfig>;
