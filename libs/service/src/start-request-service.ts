import { type BusConnection, connectBus } from '@agentwire/bus';
import { createDatabase, isReachable, migrate } from '@agentwire/store';
import type { Logger } from '@agentwire/telemetry';
import type { FastifyInstance } from 'fastify';
import type { BaseServiceConfig, DatabaseConfig } from './base-service-config.ts';
import { buildServiceApp, listenServiceApp } from './build-service-app.ts';

/** Options of {@link startRequestService}. */
export interface RequestServiceOptions {
  readonly name: string;
  readonly instanceId: string;
  readonly config: BaseServiceConfig & DatabaseConfig & { readonly AW_PG_POOL_SIZE: number };
  readonly logger: Logger;
  readonly metricsText: () => Promise<string>;
  /** The service's own state, shown by `/readyz`; ready once `serving()` and both are up. */
  readonly state: () => Readonly<Record<string, unknown>>;
  readonly serving: () => boolean;
}

/** What a request service runs on. */
export interface RequestServiceBase {
  readonly app: FastifyInstance;
  readonly port: number;
  readonly bus: BusConnection;
  readonly db: ReturnType<typeof createDatabase>;
  /** Closes NATS, Postgres and HTTP, in that order (after the service drained). */
  close(): Promise<void>;
}

/**
 * The start of a service that answers NATS requests from Postgres (the query service, the
 * title sidecar): serves `/healthz`, `/readyz` (503 while NATS or Postgres is unreachable,
 * not only before the start, issue 9) and `/metrics`, then connects to Postgres and NATS
 * and runs the store's migrations (safe from several processes).
 */
export async function startRequestService(o: RequestServiceOptions): Promise<RequestServiceBase> {
  const live: { bus?: BusConnection; db?: ReturnType<typeof createDatabase> } = {};
  const app = buildServiceApp({
    name: o.name,
    readiness: async () => {
      const nats = live.bus?.connected === true;
      const postgres = live.db !== undefined && (await isReachable(live.db));
      const detail = {
        ...o.state(),
        nats: nats ? 'up' : 'down',
        postgres: postgres ? 'up' : 'down',
      };
      return { ok: o.serving() && nats && postgres, detail };
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
  live.bus = bus;
  live.db = db;
  await migrate(db);
  return {
    app,
    port,
    bus,
    db,
    async close() {
      await bus.close();
      await db.destroy();
      await app.close();
    },
  };
}
