import { type BusConnection, connectBus, serveRequests } from '@agentwire/bus';
import { createDatabase, migrate } from '@agentwire/store';
import type { Logger } from '@agentwire/telemetry';
import type { Msg } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import { backendsUp } from './backends-up.ts';
import type { BaseServiceConfig, DatabaseConfig } from './base-service-config.ts';
import { buildServiceApp, listenServiceApp } from './build-service-app.ts';

type Db = ReturnType<typeof createDatabase>;

/** Options of {@link startRequestService}. */
export interface RequestServiceOptions {
  readonly name: string;
  readonly instanceId: string;
  readonly config: BaseServiceConfig & DatabaseConfig & { readonly AW_PG_POOL_SIZE: number };
  readonly logger: Logger;
  readonly metricsText: () => Promise<string>;
  /** The subject or filter answered, in the queue group `queue` every instance joins. */
  readonly subject: string;
  readonly queue: string;
  /** Names the service in its log lines (`query`, `title sidecar`). */
  readonly what: string;
  /** Makes the request handler once NATS and Postgres are there. */
  readonly handler: (base: {
    readonly bus: BusConnection;
    readonly db: Db;
  }) => (msg: Msg) => Promise<void>;
}

/** A started request service. */
export interface RequestServiceBase {
  readonly app: FastifyInstance;
  readonly port: number;
  /** Requests being answered now. */
  inFlight(): number;
  /**
   * The drain: stops taking requests, waits for those in flight, then closes NATS,
   * Postgres and HTTP, in that order.
   */
  stop(): Promise<void>;
}

/**
 * The start of a service that answers NATS requests from Postgres in a queue group (the
 * query service, the title sidecar): serves `/healthz`, `/readyz` (503 while NATS or
 * Postgres is unreachable, not only before the start, issue 9) and `/metrics`, connects to
 * Postgres and NATS, runs the store's migrations (safe from several processes), then
 * answers `subject`, each request as its own task.
 */
export async function startRequestService(o: RequestServiceOptions): Promise<RequestServiceBase> {
  let live: { bus: BusConnection; db: Db } | undefined;
  const state = { requests: 'stopped' };
  const app = buildServiceApp({
    name: o.name,
    readiness: async () => {
      const backends = await backendsUp(live);
      const ok = state.requests === 'serving' && backends.up;
      return { ok, detail: { ...state, ...backends.detail } };
    },
    metricsText: o.metricsText,
    logger: o.logger,
  });
  const { config } = o;
  const port = await listenServiceApp(app, {
    name: o.name,
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger: o.logger,
  });
  const db = createDatabase(config.DATABASE_URL, {
    poolSize: config.AW_PG_POOL_SIZE,
    applicationName: o.instanceId,
  });
  const bus = await connectBus({
    servers: config.NATS_URL,
    auth: config,
    name: o.instanceId,
    logger: o.logger,
    noAsyncTraces: true,
  });
  live = { bus, db };
  await migrate(db);
  const server = serveRequests(bus.nc, {
    subject: o.subject,
    queue: o.queue,
    what: o.what,
    logger: o.logger,
    handle: o.handler({ bus, db }),
  });
  state.requests = 'serving';
  o.logger.info({ instanceId: o.instanceId, subject: server.subject }, `${o.what} serving`);
  return {
    app,
    port,
    inFlight: () => server.inFlight(),
    async stop() {
      state.requests = 'draining';
      await server.drain();
      state.requests = 'stopped';
      await bus.close();
      await db.destroy();
      await app.close();
    },
  };
}
