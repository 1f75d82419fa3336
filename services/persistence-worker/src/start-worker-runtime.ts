import { hostname } from 'node:os';
import { type BusConnection, connectBus, provision } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { createDatabase, type Database, migrate } from '@agentwire/store';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { JsMsg } from '@nats-io/jetstream';
import { type Tracer, trace } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { WorkerConfig } from './config.ts';
import { type PersistenceWorker, startPersistenceWorker } from './persistence-worker.ts';
import { createWorkerMetrics, type WorkerMetrics } from './worker-metrics.ts';

/** Options of {@link startWorkerRuntime}. */
export interface WorkerRuntimeOptions {
  readonly config: WorkerConfig;
  readonly logger?: Logger;
  readonly metrics?: WorkerMetrics;
  /** The tracer of the per-message spans (default: the global provider's). */
  readonly tracer?: Tracer;
  /** Told about each readiness step (`nats`, `postgres`, `consumers`). */
  readonly onState?: (part: 'nats' | 'postgres' | 'consumers', state: string) => void;
  readonly onCommitted?: (consumer: 'events' | 'commands', messages: readonly JsMsg[]) => void;
}

/** A started worker with what it runs on. */
export interface WorkerRuntime {
  readonly bus: BusConnection;
  readonly db: Kysely<Database>;
  readonly metrics: WorkerMetrics;
  /** Drains the consumers, then closes NATS and the pool. */
  stop(): Promise<void>;
}

/**
 * Everything `main.ts` does between reading the config and serving: connect to NATS,
 * provision the streams, run the migrations (both idempotent and safe from several
 * processes at once) and start the worker. Tests and the bench run it in-process.
 */
export async function startWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const { config } = options;
  const logger = options.logger ?? noopLogger;
  const onState = options.onState ?? (() => {});
  const metrics = options.metrics ?? createWorkerMetrics('persistence-worker');
  const n = names(config.AW_PREFIX);
  const db = createDatabase(config.DATABASE_URL, {
    poolSize: config.AW_PG_POOL_SIZE,
    applicationName: `persistence-worker-${process.pid}`,
    onPoolError: (err) => logger.warn({ err }, 'idle postgres connection failed'),
  });
  let bus: BusConnection | undefined;
  let worker: PersistenceWorker | undefined;
  try {
    bus = await connectBus({
      servers: config.NATS_URL,
      auth: config,
      name: `persistence-worker-${hostname()}-${process.pid}`,
      logger,
      noAsyncTraces: true,
    });
    onState('nats', 'connected');
    await provision(bus.nc, n, { replicas: config.AW_REPLICAS });
    const { applied } = await migrate(db);
    onState('postgres', 'migrated');
    logger.info({ applied }, 'migrations done');
    worker = await startPersistenceWorker({
      nc: bus.nc,
      js: bus.js,
      jsm: bus.jsm,
      db,
      names: n,
      settings: {
        batchSize: config.AW_PULL_BATCH_SIZE,
        batchesInFlight: config.AW_BATCHES_IN_FLIGHT,
        maxDeliver: config.AW_MAX_DELIVER,
        maxMessageBytes: config.AW_MAX_MESSAGE_BYTES,
        ackWaitMs: config.AW_ACK_WAIT_MS,
        eventsDurable: config.AW_EVENTS_DURABLE,
        commandsDurable: config.AW_COMMANDS_DURABLE,
      },
      logger,
      tracer: options.tracer ?? trace.getTracer('persistence-worker'),
      metrics,
      ...(options.onCommitted === undefined ? {} : { onCommitted: options.onCommitted }),
    });
    onState('consumers', 'running');
  } catch (error) {
    await bus?.close();
    await db.destroy();
    throw error;
  }
  const started = { bus, worker };
  return {
    bus,
    db,
    metrics,
    async stop() {
      onState('consumers', 'draining');
      await started.worker.stop();
      onState('consumers', 'stopped');
      await started.bus.close();
      await db.destroy();
    },
  };
}
