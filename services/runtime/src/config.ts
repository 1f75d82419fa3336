import { TITLE_STORE_RETRY_DEFAULT_MS, TITLE_TIMEOUT_DEFAULT_MS } from '@agentwire/contracts';
import { BaseServiceConfig, DatabaseConfig, positiveInt, token } from '@agentwire/service';
import { z } from 'zod';

/**
 * The runtime's environment (DESIGN.md "Processes": zod-validated): the shared variables of
 * `BaseServiceConfig` and `DatabaseConfig`, and its own `AW_*` settings. The model is the
 * scripted provider unless `AW_MODEL_PROVIDER=openai-compatible`, which needs
 * `AW_MODEL_BASE_URL` and `AW_MODEL_ID` (and usually `AW_MODEL_API_KEY`).
 */
export const RuntimeConfig = BaseServiceConfig.extend(DatabaseConfig.shape)
  .extend({
    /** Every tool path is confined to this directory (issue 6, item 4). */
    AW_WORKSPACE_ROOT: z.string().min(1),
    /** This process's instance id; random per start when absent (never reused, R13.1). */
    AW_INSTANCE_ID: token().optional(),
    AW_MODEL_PROVIDER: z.enum(['scripted', 'openai-compatible']).default('scripted'),
    AW_MODEL_BASE_URL: z.string().url().optional(),
    AW_MODEL_API_KEY: z.string().optional(),
    AW_MODEL_ID: z.string().min(1).optional(),
    AW_SCRIPTED_SCENARIO: z.string().min(1).default('streamed_text'),
    /** Overrides every scripted scenario's delay between streamed parts. */
    AW_SCRIPTED_CHUNK_DELAY_MS: z.coerce.number().int().min(0).optional(),
    AW_PERMISSION_TIMEOUT_MS: positiveInt(120_000),
    AW_CONFIRM_TIMEOUT_MS: positiveInt(10_000),
    /** Must match the lease bucket's TTL (provisioned with it when the bucket is new). */
    AW_LEASE_TTL_MS: positiveInt(30_000),
    AW_MAX_PROMPT_BYTES: positiveInt(64 * 1024),
    /**
     * Title generation through the sidecar (R9.4-R9.5, flow 4): `on` gives sessions the
     * empty config object that turns it on; absent or `off` means off (R9.5).
     */
    AW_TITLE_GENERATION: z.enum(['on', 'off']).default('off'),
    /** `providerId/modelId` of `titleGeneration.modelSelection`; the session's model when absent. */
    AW_TITLE_MODEL: z
      .string()
      .regex(/^[^/]+\/.+$/, 'must be providerId/modelId')
      .optional(),
    /**
     * How long a title request may wait for the sidecar: above its model timeout and its
     * store retries (60 s + 10 s by default).
     */
    AW_TITLE_REQUEST_TIMEOUT_MS: positiveInt(
      TITLE_TIMEOUT_DEFAULT_MS + TITLE_STORE_RETRY_DEFAULT_MS + 5_000,
    ),
    /** Residency (R11.1, R16.6): sessions kept, the LRU trigger, and the idle timeout. */
    AW_RESIDENT_TARGET: z.coerce.number().int().min(0).default(8),
    AW_RESIDENT_HIGH_WATER: z.coerce.number().int().min(0).default(16),
    AW_RESIDENT_IDLE_MS: z.coerce.number().int().min(0).default(600_000),
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
/** The runtime's parsed configuration. */
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;
