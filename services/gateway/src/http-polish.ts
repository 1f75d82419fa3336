import cors from '@fastify/cors';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Where the API reference page is served. */
const DOCS_PATH = '/docs';

/**
 * Cross-origin requests from browsers (`AW_GATEWAY_CORS_ORIGINS`): off unless origins are
 * given. Each origin is an exact `scheme://host[:port]`, or `*` for any origin (no
 * credentials then, as the Fetch standard requires). Preflights are answered before the
 * authentication hook, so a browser may ask before it sends its bearer token; the headers a
 * frontend sends (`authorization`, `content-type`, `last-event-id`) are allowed.
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  void app.register(cors, {
    origin: any ? '*' : [...origins],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'last-event-id'],
    credentials: !any,
    maxAge: 600,
  });
}

/**
 * The API reference page at `/docs` (Swagger UI, `@fastify/swagger-ui`), rendering the same
 * OpenAPI document as `/openapi.json`. Register after `registerOpenApi`; its routes are
 * hidden from the document.
 */
export function registerApiDocs(app: FastifyInstance): void {
  void app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { deepLinking: true, tryItOutEnabled: false },
    staticCSP: true,
  });
}

/** Parses `AW_GATEWAY_CORS_ORIGINS`: comma-separated origins, empty for none. */
export function corsOriginsOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
}
