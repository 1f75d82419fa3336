import { BaseServiceConfig, positiveInt } from '@agentwire/service';
import { z } from 'zod';
import { corsOriginsOf } from './http-polish.ts';

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
  /** Largest SSE frame data, bytes; a larger frame goes out as checked fragments (0200). */
  AW_SSE_MAX_FRAME_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(256 * 1024),
  /**
   * Origins allowed cross-origin, comma-separated (`https://app.example.com`), or `*`;
   * empty (the default): no CORS headers, browsers allow same-origin pages only.
   */
  AW_GATEWAY_CORS_ORIGINS: z
    .string()
    .default('')
    .refine((v) => corsOriginsOf(v).every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), {
      message: 'must be comma-separated origins (scheme://host[:port]) or *',
    })
    .transform(corsOriginsOf),
  /** Session-route requests a minute per token (per address without auth); over it 429. */
  AW_GATEWAY_RATE_LIMIT: positiveInt(600),
  /** `jwt`: bearer tokens with a tenant and scopes on every session route (0146). */
  AW_GATEWAY_AUTH: z.enum(['off', 'jwt']).default('off'),
  AW_GATEWAY_JWT_ISSUER: z.string().min(1).optional(),
  AW_GATEWAY_JWT_AUDIENCE: z.string().min(1).optional(),
  /** Keys, one of: a JWKS URL, a PEM public key (SPKI) with its algorithm, a dev secret. */
  AW_GATEWAY_JWT_JWKS_URL: z.string().url().optional(),
  AW_GATEWAY_JWT_PUBLIC_KEY: z.string().min(1).optional(),
  AW_GATEWAY_JWT_ALG: z.enum(['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA']).default('RS256'),
  /** Development only (static-key mode): an HS256 secret of at least 32 characters. */
  AW_GATEWAY_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Oldest `iat` accepted (jose time span: `1h`, `15m`). */
  AW_GATEWAY_JWT_MAX_AGE: z.string().min(1).default('1h'),
  AW_GATEWAY_MAX_TOKEN_BYTES: positiveInt(8192),
  /** The web client's built files (`apps/web/dist` when built); `off` serves none. */
  AW_WEB_DIR: z.string().min(1).optional(),
}).superRefine((c, ctx) => {
  if (c.AW_GATEWAY_AUTH !== 'jwt') return;
  for (const key of ['AW_GATEWAY_JWT_ISSUER', 'AW_GATEWAY_JWT_AUDIENCE'] as const) {
    if (c[key] === undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'required with AW_GATEWAY_AUTH=jwt' });
  }
  const sources = [c.AW_GATEWAY_JWT_JWKS_URL, c.AW_GATEWAY_JWT_PUBLIC_KEY, c.AW_GATEWAY_JWT_SECRET];
  if (sources.filter((s) => s !== undefined).length !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['AW_GATEWAY_JWT_JWKS_URL'],
      message:
        'set exactly one of AW_GATEWAY_JWT_JWKS_URL, AW_GATEWAY_JWT_PUBLIC_KEY, AW_GATEWAY_JWT_SECRET',
    });
  }
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
