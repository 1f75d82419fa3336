import Fastify, { type FastifyInstance } from 'fastify';
import { noopServiceLogger, type ServiceLogger } from './service-logger.ts';

/** What a service says about its readiness; `detail` carries the reasons (R-agnostic). */
export interface Readiness {
  readonly ok: boolean;
  /** Per-dependency state or reasons for not being ready, shown by `/readyz`. */
  readonly detail: Readonly<Record<string, unknown>>;
}

/** Options of {@link buildServiceApp}. */
export interface ServiceAppOptions {
  /** Service name, echoed by `/healthz`. */
  readonly name: string;
  /** Current readiness; `/readyz` answers 503 with the detail until `ok` is true. */
  readonly readiness: () => Readiness | Promise<Readiness>;
  /** Prometheus text exposition served by `/metrics`. */
  readonly metricsText: () => Promise<string>;
  readonly logger?: ServiceLogger;
}

/** Content type of the Prometheus text format 0.0.4. */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Builds the operational HTTP app every service serves (DESIGN.md "Processes"):
 * `GET /healthz` (the process is alive), `GET /readyz` (200 when ready, 503 with reasons
 * otherwise) and `GET /metrics` (Prometheus text). Not listening yet: tests use
 * `app.inject()`, services call {@link listenServiceApp}.
 */
export function buildServiceApp(options: ServiceAppOptions): FastifyInstance {
  const logger = options.logger ?? noopServiceLogger;
  // Path parameters are checked by each route's schema, which answers in the service's own
  // error shape; Fastify's router would otherwise answer a parameter over 100 characters
  // with a 414 of its own.
  const app = Fastify({ logger: false, routerOptions: { maxParamLength: 1024 } });
  app.get('/healthz', async () => ({ status: 'alive', service: options.name }));
  app.get('/readyz', async (_request, reply) => {
    const readiness = await options.readiness();
    reply.code(readiness.ok ? 200 : 503);
    return { status: readiness.ok ? 'ready' : 'not_ready', detail: readiness.detail };
  });
  app.get('/metrics', async (_request, reply) => {
    try {
      const text = await options.metricsText();
      reply.type(PROMETHEUS_CONTENT_TYPE);
      return text;
    } catch (error) {
      logger.error({ err: error }, 'metrics collection failed');
      reply.code(500);
      return { status: 'error', message: 'metrics collection failed' };
    }
  });
  return app;
}

/**
 * Starts listening and returns the bound port (`port: 0` picks an ephemeral one), logging
 * one line `"<name> http listening"` with the port so scripts and tests can find it.
 */
export async function listenServiceApp(
  app: FastifyInstance,
  options: {
    readonly name: string;
    readonly port: number;
    readonly host?: string;
    readonly logger?: ServiceLogger;
  },
): Promise<number> {
  await app.listen({ port: options.port, host: options.host ?? '0.0.0.0' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  (options.logger ?? noopServiceLogger).info(
    { service: options.name, port },
    `${options.name} http listening`,
  );
  return port;
}
