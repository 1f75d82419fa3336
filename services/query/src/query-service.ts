import { performance } from 'node:perf_hooks';
import { BlobStore, type BusConnection, lastMessageOn, sequenceOf } from '@agentwire/bus';
import { type Names, names, QUERY_QUEUE_GROUP } from '@agentwire/contracts';
import { type RequestServiceBase, startRequestService } from '@agentwire/service';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import { JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import type { Msg } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import { answerQuery, type QueryDeps, type QueryReply } from './answer-query.ts';
import type { QueryConfig } from './config.ts';
import { createQueryMetrics, type QueryMetrics } from './query-metrics.ts';

/** Service name: logs, `/healthz`, connection names. */
export const QUERY_SERVICE = 'query';

/** Collaborators of {@link startQueryService}; every one has a default. */
export interface QueryServiceDeps {
  readonly logger?: Logger;
}

/** A running query service instance. */
export interface QueryService {
  readonly instanceId: string;
  /** Bound HTTP port of `/healthz`, `/readyz`, `/metrics`. */
  readonly port: number;
  readonly app: FastifyInstance;
  readonly metrics: QueryMetrics;
  /** Requests this instance answered since it started. */
  answered(): number;
  /** Drains: stop taking requests, finish those in flight, close. */
  stop(): Promise<void>;
}

/** JetStream's "stream not found": the lease bucket was never created, so nothing holds a lease. */
const STREAM_NOT_FOUND = 10059;

/** Header of a KV delete or purge marker (`DEL`, `PURGE`); absent on a put. */
const KV_OPERATION = 'KV-Operation';

async function leaseHeld(jsm: JetStreamManager, n: Names, sessionId: string): Promise<boolean> {
  const bucket = n.leaseBucket;
  try {
    const msg = await lastMessageOn(jsm, `KV_${bucket}`, `$KV.${bucket}.${sessionId}`);
    if (msg === null) return false;
    const operation = msg.header?.get(KV_OPERATION);
    return operation !== 'DEL' && operation !== 'PURGE';
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return false;
    throw error;
  }
}

async function purgeSessionEvents(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<number> {
  try {
    const response = await jsm.streams.purge(n.eventsStream, {
      filter: n.sessionFilter(sessionId),
    });
    return response.purged;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return 0;
    throw error;
  }
}

async function lastEventSequence(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<number | null> {
  try {
    const msg = await lastMessageOn(jsm, n.eventsStream, n.eventSubject(sessionId));
    return msg === null ? null : sequenceOf(msg);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return null;
    throw error;
  }
}

async function pendingSessionCommands(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<number> {
  const subject = n.commandSubject(sessionId);
  try {
    const info = await jsm.streams.info(n.commandsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return 0;
    throw error;
  }
}

/**
 * Starts one query service instance (DESIGN.md "The read side"): serves the operational
 * HTTP endpoints, connects to NATS and Postgres (running the store's migrations, safe from
 * several processes), and answers `<prefix>.query.*` in the `query` queue group, so that
 * every instance with the same prefix shares the requests.
 */
export async function startQueryService(
  config: QueryConfig,
  deps: QueryServiceDeps = {},
): Promise<QueryService> {
  const logger = deps.logger ?? noopLogger;
  const instanceId = config.AW_INSTANCE_ID ?? `${QUERY_SERVICE}-${process.pid}`;
  const n = names(config.AW_PREFIX);
  let base: RequestServiceBase | undefined;
  let answered = 0;
  const metrics = createQueryMetrics(QUERY_SERVICE, () => base?.inFlight() ?? 0);
  const handler = ({ bus, db }: { bus: BusConnection; db: QueryDeps['db'] }) => {
    // The runtimes make the bucket (they write to it first): this service only adds to it.
    const blobs = BlobStore.reader(bus.nc, n);
    const queryDeps: QueryDeps = {
      db,
      sessionHeld: (sessionId) => leaseHeld(bus.jsm, n, sessionId),
      purgeEvents: (sessionId) => purgeSessionEvents(bus.jsm, n, sessionId),
      pendingCommands: (sessionId) => pendingSessionCommands(bus.jsm, n, sessionId),
      lastEventSequence: (sessionId) => lastEventSequence(bus.jsm, n, sessionId),
      maxRequestBytes: config.AW_QUERY_MAX_REQUEST_BYTES,
      storeBlob: (text) => blobs.put(text),
    };
    const handle = async (msg: Msg): Promise<void> => {
      const op = n.parseQuerySubject(msg.subject) ?? '';
      const started = performance.now();
      const reply: QueryReply = await answerQuery(op, msg.data, queryDeps);
      answered += 1;
      // An unknown op is counted under one label, so a caller cannot grow the label set.
      const opLabel = reply.ok || reply.error.code !== 'unknown_op' ? op : 'unknown';
      metrics.record(
        opLabel,
        reply.ok ? 'ok' : reply.error.code,
        (performance.now() - started) / 1000,
      );
      if (!reply.ok) {
        logger.info({ op, code: reply.error.code, message: reply.error.message }, 'query refused');
      }
      if (msg.reply === undefined || msg.reply === '') return;
      msg.respond(JSON.stringify(reply));
    };
    return handle;
  };
  const started = await startRequestService({
    name: QUERY_SERVICE,
    instanceId,
    config,
    logger,
    metricsText: () => metrics.registry.render(),
    subject: n.allQueriesFilter,
    queue: QUERY_QUEUE_GROUP,
    what: 'query',
    handler,
  });
  base = started;
  return {
    instanceId,
    port: started.port,
    app: started.app,
    metrics,
    answered: () => answered,
    async stop() {
      await started.stop();
      await metrics.registry.shutdown();
    },
  };
}
