import { randomUUID } from 'node:crypto';
import { connectBus, ensureDurableConsumer, provision } from '@agentwire/bus';
import { type Names, names, type SessionProjection } from '@agentwire/contracts';
import { buildServiceApp, listenServiceApp } from '@agentwire/service';
import { createDatabase, isReachable, migrate } from '@agentwire/store';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { FastifyInstance } from 'fastify';
import { reduceSessionProjection } from './domain-reduce.ts';
import { consumeEvents, type EventConsumer } from './event-consumer.ts';
import { PgProjectionStore } from './pg-projection-store.ts';
import { ProjectionApplier } from './projection-applier.ts';
import type { ProjectionConfig } from './projection-config.ts';
import { createProjectionMetrics } from './projection-metrics.ts';
import { answerProjectionGet, type GetProjection } from './projection-query.ts';
import { registerProjectionRoutes } from './projection-routes.ts';
import { ReadCoalescer } from './read-coalescer.ts';
import { rebuildFromStream } from './rebuild-from-stream.ts';
import { RebuildJobs } from './rebuild-jobs.ts';
import { readPersistedSession, recoverFromTranscript } from './recover-from-transcript.ts';
import { SessionRouter } from './session-router.ts';
import { WriteCoalescer } from './write-coalescer.ts';

/** A running projection instance. */
export interface ProjectionService {
  readonly port: number;
  readonly app: FastifyInstance;
  readonly applier: ProjectionApplier<SessionProjection>;
  readonly rebuilds: RebuildJobs;
  /** Drains (DESIGN.md "Processes"): stop pulling, finish in-flight commits, nak held, close. */
  stop(): Promise<void>;
}

const STREAM_NOT_FOUND = 10059;

async function ensureStreams(
  nc: Parameters<typeof provision>[0],
  jsm: { streams: { info(n: string): Promise<unknown> } },
  n: Names,
  replicas: number,
) {
  try {
    await jsm.streams.info(n.eventsStream);
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || error.code !== STREAM_NOT_FOUND) throw error;
    await provision(nc, n, { replicas });
  }
}

/**
 * Starts one projection instance (issue 5, DESIGN.md flow 3): connects to NATS and
 * Postgres, runs migrations, ensures the shared durable consumer, applies events in
 * per-session order, answers `<prefix>.projection.get` (queue group) and the HTTP routes,
 * and serves `/healthz`, `/readyz`, `/metrics`.
 */
export async function startProjectionService(
  config: ProjectionConfig,
  logger: Logger = noopLogger,
): Promise<ProjectionService> {
  const n = names(config.AW_PREFIX);
  const bus = await connectBus({
    servers: config.NATS_URL,
    auth: config,
    name: config.AW_INSTANCE_ID,
    logger,
    noAsyncTraces: true,
  });
  const db = createDatabase(config.DATABASE_URL, {
    poolSize: config.AW_PG_POOL_SIZE,
    applicationName: config.AW_INSTANCE_ID,
  });
  await migrate(db);
  await ensureStreams(bus.nc, bus.jsm, n, config.AW_REPLICAS);
  const eventsConsumer = await ensureDurableConsumer(bus.nc, bus.jsm, {
    stream: n.eventsStream,
    durable: config.AW_PROJECTION_DURABLE,
    filterSubject: n.allEventsFilter,
    ackWaitMs: config.AW_ACK_WAIT_MS,
    maxAckPending: config.AW_PROJECTION_MAX_ACK_PENDING,
  });
  const store = new PgProjectionStore(db);
  const router = new SessionRouter({
    nc: bus.nc,
    prefix: n.prefix,
    self: randomUUID(),
    accept: (d) => applier.accept(d),
    heartbeatMs: config.AW_PROJECTION_HEARTBEAT_MS,
    expireMs: config.AW_PROJECTION_MEMBER_EXPIRE_MS,
    now: Date.now,
    logger,
  });
  const affinity = config.AW_PROJECTION_SESSION_AFFINITY === 'on';
  const applier = new ProjectionApplier<SessionProjection>({
    reader: new ReadCoalescer(store, 2, 500),
    writer: new WriteCoalescer(store, Math.max(1, config.AW_PROJECTION_CONCURRENCY >> 1), 200),
    reduce: reduceSessionProjection,
    now: Date.now,
    holdMs: config.AW_PROJECTION_HOLD_MS,
    keepAliveMs: Math.max(100, Math.floor(config.AW_ACK_WAIT_MS / 3)),
    maxHeld: config.AW_PROJECTION_MAX_HELD,
    gapNakDelayMs: config.AW_PROJECTION_GAP_NAK_DELAY_MS,
    recheckMs: config.AW_PROJECTION_RECHECK_MS,
    stuckAfterMs: config.AW_PROJECTION_STUCK_AFTER_MS,
    maxDeliver: config.AW_MAX_DELIVER,
    ...(affinity ? { owns: (sid: string) => router.owns(sid) } : {}),
    onCommitted: (sid, last) => bus.nc.publish(n.projectionApplied(sid), String(last)),
    logger,
  });
  const notices = bus.nc.subscribe(n.projectionAppliedFilter, {
    callback: (_err, msg) => {
      const sid = n.parseProjectionApplied(msg.subject);
      const last = Number(msg.string());
      if (sid !== undefined && Number.isSafeInteger(last)) applier.noteCommitted(sid, last);
    },
  });
  const getProjection: GetProjection = async (sid) => {
    const row = await store.get(sid);
    return row === undefined
      ? undefined
      : { projection: row.projection, asOfSeq: row.lastSequence };
  };
  const queries = bus.nc.subscribe(n.projectionGet, {
    queue: 'projection',
    callback: (_err, msg) => {
      let data: unknown;
      try {
        data = msg.json();
      } catch {
        data = undefined;
      }
      void answerProjectionGet(data, getProjection).then((reply) =>
        msg.respond(JSON.stringify(reply)),
      );
    },
  });
  const rebuilds = new RebuildJobs(
    (sessionId, onProgress) =>
      rebuildFromStream({
        js: bus.js,
        names: n,
        store,
        reduce: reduceSessionProjection,
        batchSessions: config.AW_PROJECTION_REBUILD_BATCH_SESSIONS,
        ...(sessionId === undefined ? {} : { sessionId }),
        onProgress,
        // R10.4: a session whose start aged out of the stream comes back from its transcript.
        recover: async (sid, retained) => {
          const persisted = await readPersistedSession(db, sid);
          const traceId = randomUUID().replaceAll('-', '');
          const found = recoverFromTranscript(sid, persisted, retained, traceId);
          if ('refused' in found) {
            logger.warn(
              { sessionId: sid, reason: found.refused },
              'rebuild: a session whose first events aged out stays incomplete',
            );
            return undefined;
          }
          logger.info(
            { sessionId: sid, lastSequence: found.lastSequence },
            'rebuild: recovered a session from its transcript (R10.4)',
          );
          return found;
        },
        onWritten: (sid, last) => {
          applier.invalidate(sid);
          bus.nc.publish(n.projectionApplied(sid), String(last));
        },
      }),
    randomUUID,
    Date.now,
  );
  // The consumer's backlog from its deliveries, never a consumer info request (0246).
  let backlog = () => 0;
  const metrics = createProjectionMetrics('projection', {
    stats: applier.stats,
    held: () => applier.held(),
    stuck: () => applier.stuck(),
    consumerPending: () => backlog(),
  });
  let ready = false;
  const app = buildServiceApp({
    name: 'projection',
    // 503 while NATS or Postgres is unreachable, not only before the start (issue 9).
    readiness: async () => {
      const postgres = await isReachable(db);
      return {
        ok: ready && bus.connected && postgres,
        detail: {
          consuming: ready,
          nats: bus.connected ? 'up' : 'down',
          postgres: postgres ? 'up' : 'down',
        },
      };
    },
    metricsText: () => metrics.registry.render(),
    logger,
  });
  registerProjectionRoutes(app, { getProjection, rebuilds });
  if (affinity) router.start();
  const consumer: EventConsumer = await consumeEvents({
    js: bus.js,
    consumer: eventsConsumer,
    names: n,
    durable: config.AW_PROJECTION_DURABLE,
    accept: affinity ? (d, data) => router.route(d, data) : (d) => applier.accept(d),
    refused: (sid, seq, code) => {
      if (sid !== undefined && seq !== undefined) applier.markBlocked(sid, seq, code);
    },
    batch: 1_000,
    logger,
  });
  backlog = () => consumer.backlog();
  const ticker = setInterval(
    () => {
      applier.tick();
      if (affinity)
        router.tick(
          (sid) => applier.takeOver(sid),
          (sid) => applier.handOff(sid),
        );
      metrics.sample(Date.now());
    },
    Math.min(50, config.AW_PROJECTION_RECHECK_MS),
  );
  const port = await listenServiceApp(app, {
    name: 'projection',
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger,
  });
  ready = true;
  return {
    port,
    app,
    applier,
    rebuilds,
    async stop() {
      ready = false;
      if (affinity) router.stop();
      await consumer.stop();
      await applier.drain();
      const { lagMs: _lag, ...counters } = applier.stats;
      logger.info(
        { stats: { ...counters, forwarded: router.forwarded } },
        'projection applier stats',
      );
      await rebuilds.settle();
      clearInterval(ticker);
      notices.unsubscribe();
      queries.unsubscribe();
      await app.close();
      await bus.close();
      await db.destroy();
      await metrics.registry.shutdown();
    },
  };
}
