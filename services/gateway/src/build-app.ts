import { DEFAULT_MAX_FRAME_BYTES } from '@agentwire/contracts';
import { buildServiceApp, type Readiness, type ServiceLogger } from '@agentwire/service';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance } from 'fastify';
import { type GatewayAuth, registerAuth } from './auth/register-auth.ts';
import { registerEventsRoute } from './events-route.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { GatewayBackend } from './gateway-port.ts';
import { errorBody } from './http-error.ts';
import { registerApiDocs, registerCors } from './http-polish.ts';
import { documentOnlyRequests, registerOpenApi } from './openapi.ts';
import type { QueryBackend } from './query-port.ts';
import { registerQueryRoutes } from './query-routes.ts';
import { SessionFanout } from './session-fanout.ts';
import { registerSessionRoutes, type SessionRouteOptions } from './session-routes.ts';
import { SseHub } from './sse-hub.ts';
import { registerTicketStreamRoute } from './ticket-stream-route.ts';
import { registerTranscriptRoutes } from './transcript-routes.ts';
import { registerWebApp } from './web-app.ts';

/** Options of {@link buildApp}. */
export interface GatewayAppOptions {
  readonly backend: GatewayBackend;
  /** The read side (`<prefix>.query.*`): the session list, history, archive, delete. */
  readonly query?: QueryBackend;
  /** `/readyz`; the default is always ready. */
  readonly readiness?: () => Readiness;
  /** Open SSE streams; pass one to count or end them from outside. */
  readonly hub?: SseHub;
  readonly metrics?: GatewayMetrics;
  readonly logger?: ServiceLogger;
  /** Largest request body, bytes (default 256 KiB); larger gets 413 `body_too_large`. */
  readonly bodyLimit?: number;
  /** Timeout of runtime and projection requests, ms (default 15 s). */
  readonly requestTimeoutMs?: number;
  /** Timeout of `prompt`/`interrupt` with `wait: true` and of an import, ms (default 300 s). */
  readonly waitTimeoutMs?: number;
  /** SSE heartbeat interval, ms (default 15 s). */
  readonly heartbeatMs?: number;
  /** Largest SSE frame `data` before it is sent as fragments, bytes (default 256 KiB, 0200). */
  readonly maxFrameBytes?: number;
  /** Bearer tokens and tenants on the session routes; absent: open, as before (0146). */
  readonly auth?: GatewayAuth;
  /** Session-route requests per minute per token (per client address without auth). */
  readonly rateLimitPerMinute?: number;
  /** Origins allowed cross-origin (`*` for any); absent or empty: CORS off. */
  readonly corsOrigins?: readonly string[];
  /** The web client's built files, served at `/` (web-app.ts); absent: no web client. */
  readonly webDir?: string;
}

/** Fastify's own error codes and the gateway error code each becomes. */
const FASTIFY_CODES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  AW_GATEWAY_RATE_LIMITED: 'rate_limited',
};

const RATE_LIMITED = 'AW_GATEWAY_RATE_LIMITED';

/** Most events coalesced into one SSE frame (docs/decisions/0200). */
const MAX_EVENTS_PER_FRAME = 256;

/**
 * Builds the gateway's HTTP app (DESIGN.md "Processes": HTTP and Server-Sent Events for
 * browsers and scripts): the session command routes, the projection read, the SSE follow
 * route and `/healthz`, `/readyz`, `/metrics`. Every error is JSON
 * `{ error: { code, message, detail? } }`. Closing the app (`app.close()`) first ends every
 * open SSE stream cleanly, so a drain is not held up by followers. Not listening yet:
 * tests use `app.inject()`.
 */
export function buildApp(options: GatewayAppOptions): FastifyInstance {
  const hub = options.hub ?? new SseHub();
  const metrics = options.metrics;
  const app = buildServiceApp({
    name: 'gateway',
    readiness: options.readiness ?? (() => ({ ok: true, detail: {} })),
    metricsText: () => metrics?.registry.render() ?? Promise.resolve(''),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  app.addHook('preClose', async () => {
    await hub.closeAll();
  });
  if (metrics !== undefined) {
    app.addHook('onResponse', async (request, reply) => {
      metrics.request(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode);
    });
  }
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody('route_not_found', `no route ${request.method} ${request.url}`));
  });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const code =
      FASTIFY_CODES[error.code] ?? (error instanceof SyntaxError ? 'invalid_json' : undefined);
    const status = error.statusCode ?? 500;
    if (code !== undefined || (status >= 400 && status < 500)) {
      return reply.code(status).send(errorBody(code ?? 'invalid_request', error.message));
    }
    options.logger?.error({ err: error }, 'gateway request failed');
    return reply.code(500).send(errorBody('internal', 'internal error'));
  });
  registerOpenApi(app);
  registerApiDocs(app);
  registerCors(app, options.corsOrigins ?? []);
  void app.register(helmet);
  if (options.webDir !== undefined) registerWebApp(app, options.webDir);
  if (options.auth !== undefined) registerAuth(app, options.auth, options.backend);
  void app.register(rateLimit, {
    max: options.rateLimitPerMinute ?? 600,
    timeWindow: 60_000,
    // Its hook runs after the authentication hook added above (and before the tenant
    // check): the key is the token, not the address.
    hook: 'onRequest',
    keyGenerator: (request) => request.principal?.tokenKey ?? request.ip,
    allowList: (request) => !request.url.startsWith('/sessions'),
    // Thrown to the error handler below, which maps the code.
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      code: RATE_LIMITED,
      message: `over ${context.max} requests a minute; retry in ${context.after}`,
    }),
  });
  // The routes live in a child context registered after the rate limit, whose route hook
  // then sees them.
  void app.register(async (scope) => {
    documentOnlyRequests(scope);
    const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    const auth = options.auth;
    const sessionRoutes: SessionRouteOptions = {
      ...(auth === undefined
        ? {}
        : {
            onCreated: (request, sessionId) =>
              auth.owners.claim(sessionId, request.principal?.tenant ?? ''),
          }),
      backend: options.backend,
      bodyLimit: options.bodyLimit ?? 256 * 1024,
      requestTimeoutMs,
      waitTimeoutMs: options.waitTimeoutMs ?? 300_000,
    };
    registerSessionRoutes(scope, sessionRoutes);
    registerTranscriptRoutes(scope, { ...sessionRoutes, query: options.query });
    if (options.query !== undefined) {
      registerQueryRoutes(scope, {
        query: options.query,
        bodyLimit: options.bodyLimit ?? 256 * 1024,
        requestTimeoutMs,
        ...(auth === undefined
          ? {}
          : {
              visible: async (request, ids) => {
                const tenant = request.principal?.tenant;
                const owners = await Promise.all(ids.map((id) => auth.owners.ownerOf(id)));
                return new Set(ids.filter((_, i) => tenant !== undefined && owners[i] === tenant));
              },
            }),
      });
    }
    const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const fanout = new SessionFanout({
      backend: options.backend,
      requestTimeoutMs,
      // Room for the frame's own fields and commas: a full batch stays one frame.
      limits: { maxEvents: MAX_EVENTS_PER_FRAME, maxBytes: maxFrameBytes - 512, maxFrameBytes },
    });
    registerEventsRoute(scope, {
      backend: options.backend,
      hub,
      fanout,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      ...(metrics === undefined ? {} : { onFrame: (f) => metrics.sseEvents(f.events.length) }),
    });
    registerTicketStreamRoute(scope, {
      backend: options.backend,
      heartbeatMs: options.heartbeatMs ?? 15_000,
    });
  });
  return app;
}
