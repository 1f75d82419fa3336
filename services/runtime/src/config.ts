import { TITLE_STORE_RETRY_DEFAULT_MS, TITLE_TIMEOUT_DEFAULT_MS } from '@agentwire/contracts';
import { type ResidencyOptions, resolveResidencyOptions } from '@agentwire/domain';
import {
  BaseServiceConfig,
  DatabaseConfig,
  hasModelEndpoint,
  MODEL_ENDPOINT_REQUIRED,
  ModelProviderConfig,
  positiveInt,
  token,
} from '@agentwire/service';
import { z } from 'zod';
import { DEFAULT_TOOL_ENV_ALLOW, RUNTIME_SECRET_VARIABLES } from './tools/tool-environment.ts';

/**
 * `AW_TOOL_ENV_ALLOW`: comma-separated variable names a tool command gets; the runtime's
 * own secrets cannot be listed (docs/decisions/0142).
 */
const ToolEnvAllow = z
  .string()
  .optional()
  .transform((v) =>
    v === undefined
      ? [...DEFAULT_TOOL_ENV_ALLOW]
      : v
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
  )
  .superRefine((names, ctx) => {
    const secrets = names.filter((n) => RUNTIME_SECRET_VARIABLES.includes(n));
    if (secrets.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `must not pass the runtime's secrets to commands: ${secrets.join(', ')}`,
      });
    }
  });

/** The variable behind each residency option, for a start-up error that names it. */
const RESIDENCY_VARIABLES: { readonly [K in keyof ResidencyOptions]: string } = {
  target: 'AW_RESIDENT_TARGET',
  highWater: 'AW_RESIDENT_HIGH_WATER',
  idleTimeoutMs: 'AW_RESIDENT_IDLE_MS',
};

/**
 * `AW_MODELS`: more models a session may switch to (`/model`, R7.4): a JSON array of
 * `{ "model": "provider/model", "contextWindow": n, "outputLimit": n }`. The provider is
 * `scripted` or `openai-compatible` (the latter at `AW_MODEL_BASE_URL` with
 * `AW_MODEL_API_KEY`). Each entry names its limits; a duplicate is refused.
 */
const ModelsConfig = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return [];
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of models' });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(
        z.strictObject({
          model: z.string().regex(/^(scripted|openai-compatible)\/.+$/, {
            message: 'must be scripted/<model> or openai-compatible/<model>',
          }),
          contextWindow: z.number().int().positive(),
          outputLimit: z.number().int().positive(),
        }),
      )
      .refine((models) => new Set(models.map((m) => m.model)).size === models.length, {
        message: 'names a model twice',
      }),
  );

/**
 * The runtime's environment (DESIGN.md "Processes": zod-validated): the shared variables of
 * `BaseServiceConfig` and `DatabaseConfig`, and its own `AW_*` settings. The model is the
 * scripted provider unless `AW_MODEL_PROVIDER=openai-compatible`, which needs
 * `AW_MODEL_BASE_URL` and `AW_MODEL_ID` (and usually `AW_MODEL_API_KEY`).
 */
export const RuntimeConfig = BaseServiceConfig.extend(DatabaseConfig.shape)
  .extend(ModelProviderConfig.shape)
  .extend({
    /** Every tool path is confined to this directory (issue 6, item 4). */
    AW_WORKSPACE_ROOT: z.string().min(1),
    /** This process's instance id; random per start when absent (never reused, R13.1). */
    AW_INSTANCE_ID: token().optional(),
    AW_SCRIPTED_SCENARIO: z.string().min(1).default('streamed_text'),
    /** The configured model's context window and output limit, in tokens (R7.4). */
    AW_MODEL_CONTEXT_WINDOW: positiveInt(200_000),
    AW_MODEL_OUTPUT_LIMIT: positiveInt(8_192),
    AW_MODELS: ModelsConfig,
    /**
     * Share of the model's context window past which a turn compacts the conversation
     * before its first request (docs/decisions/0229); 1 compacts only a full window, `off`
     * never by itself (`/compact` and a "context too long" answer still do).
     */
    AW_COMPACT_AT: z
      .union([z.literal('off'), z.coerce.number().gt(0).max(1)])
      .default(0.8)
      .transform((v) => (v === 'off' ? undefined : v)),
    /** Overrides every scripted scenario's delay between streamed parts. */
    AW_SCRIPTED_CHUNK_DELAY_MS: z.coerce.number().int().min(0).optional(),
    /** The scripted model refuses a longer request as too long for its context (tests). */
    AW_SCRIPTED_CONTEXT_LIMIT: z.coerce.number().int().min(1).optional(),
    AW_PERMISSION_TIMEOUT_MS: positiveInt(120_000),
    AW_CONFIRM_TIMEOUT_MS: positiveInt(10_000),
    /**
     * How long a turn waits out a broker outage (its publishes retried) before it ends as
     * `turn_error` `broker_unavailable` (issue 9). Below the lease TTL, so the owner ends its
     * turn truthfully before anyone may take the session over.
     */
    AW_BROKER_OUTAGE_MS: positiveInt(15_000),
    /** Must match the lease bucket's TTL (provisioned with it when the bucket is new). */
    AW_LEASE_TTL_MS: positiveInt(30_000),
    AW_MAX_PROMPT_BYTES: positiveInt(64 * 1024),
    /**
     * The largest body of any event or command the runtime publishes: larger string fields
     * go to the object store, the message carries their reference (docs/decisions/0162).
     * Must stay 16 KiB below the server's `max_payload` (checked at start).
     */
    AW_MAX_EVENT_BYTES: positiveInt(256 * 1024),
    /** Environment variables `run_command` passes to a command; nothing else does. */
    AW_TOOL_ENV_ALLOW: ToolEnvAllow,
    /** How long a `run_command` may run before its process group is killed. */
    AW_TOOL_TIMEOUT_MS: positiveInt(30_000),
    /** Bytes of a tool's output returned to the model (stdout and stderr capped each). */
    AW_TOOL_OUTPUT_BYTES: positiveInt(64 * 1024),
    /**
     * Workspace checkpoints (docs/decisions/0225): a file larger than this is recorded as not
     * restorable; a whole-workspace checkpoint (before `run_command`) records at most this
     * many files.
     */
    AW_CHECKPOINT_MAX_FILE_BYTES: positiveInt(1024 * 1024),
    AW_CHECKPOINT_MAX_FILES: positiveInt(5_000),
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
  .superRefine((c, ctx) => {
    // R16.6: invalid residency options are rejected at start, naming the variable.
    const resolved = resolveResidencyOptions({
      target: c.AW_RESIDENT_TARGET,
      highWater: c.AW_RESIDENT_HIGH_WATER,
      idleTimeoutMs: c.AW_RESIDENT_IDLE_MS,
    });
    if (!resolved.ok) {
      ctx.addIssue({
        code: 'custom',
        path: [RESIDENCY_VARIABLES[resolved.field]],
        message: resolved.reason,
      });
    }
  })
  .refine(hasModelEndpoint, MODEL_ENDPOINT_REQUIRED)
  .refine(
    (c) =>
      c.AW_MODEL_BASE_URL !== undefined ||
      c.AW_MODELS.every((m) => !m.model.startsWith('openai-compatible/')),
    { path: ['AW_MODELS'], message: 'an openai-compatible model needs AW_MODEL_BASE_URL' },
  );
/** The runtime's parsed configuration. */
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;
