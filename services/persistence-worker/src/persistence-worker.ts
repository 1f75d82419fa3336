import { ensureDurableConsumer } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import type { Database } from '@agentwire/store';
import { classifyPgError } from '@agentwire/store';
import type { Logger } from '@agentwire/telemetry';
import type { Consumer, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Tracer } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import {
  type BatchHandler,
  type RunningBatchConsumer,
  startBatchConsumer,
} from './batch-consumer.ts';
import { commandBatchHandler } from './command-batch-handler.ts';

import { eventBatchHandler } from './event-batch-handler.ts';
import { deadLetterTo } from './publish-dead-letter.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

/** The tunables of a worker instance (from {@link WorkerConfig} in a process). */
interface PersistenceWorkerSettings {
  readonly batchSize: number;
  /** Batches of one consumer committing at once (`AW_BATCHES_IN_FLIGHT`). */
  readonly batchesInFlight: number;
  readonly maxDeliver: number;
  readonly maxMessageBytes: number;
  readonly ackWaitMs: number;
  readonly eventsDurable: string;
  readonly commandsDurable: string;
}

/** What a worker instance runs on; the process (or a test, or the bench) supplies it. */
export interface PersistenceWorkerDeps {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly db: Kysely<Database>;
  readonly names: Names;
  readonly settings: PersistenceWorkerSettings;
  readonly logger: Logger;
  readonly tracer: Tracer;
  readonly metrics: WorkerMetrics;
  /** Called after each committed batch, per consumer (benchmarks and tests). */
  readonly onCommitted?: (consumer: 'events' | 'commands', messages: readonly JsMsg[]) => void;
}

/** A running worker instance. */
export interface PersistenceWorker {
  /** SIGTERM path: stop pulling, finish and ack what was received, then resolve. */
  stop(): Promise<void>;
}

/**
 * Starts one persistence-worker instance (issue 4 item 3): ensures the two shared durable
 * pull consumers exist (one over every session's `ev` subject, one over `AW_COMMANDS`) and
 * consumes both. Any number of instances, in any number of processes, share the work
 * through the same durable names. Streams and the schema must exist already (`main.ts`
 * provisions and migrates).
 */
export async function startPersistenceWorker(
  deps: PersistenceWorkerDeps,
): Promise<PersistenceWorker> {
  const { settings, names: n } = deps;
  const maxAckPending = Math.max(1000, settings.batchSize * 8);
  const eventsConsumer = await ensureDurableConsumer(deps.nc, deps.jsm, {
    stream: n.eventsStream,
    durable: settings.eventsDurable,
    filterSubject: n.allEventsFilter,
    ackWaitMs: settings.ackWaitMs,
    maxAckPending,
  });
  const commandsConsumer = await ensureDurableConsumer(deps.nc, deps.jsm, {
    stream: n.commandsStream,
    durable: settings.commandsDurable,
    filterSubject: n.allCommandsFilter,
    ackWaitMs: settings.ackWaitMs,
    maxAckPending,
  });
  const start = async <T>(
    which: 'events' | 'commands',
    consumer: Consumer,
    durable: string,
    handler: BatchHandler<T>,
  ): Promise<RunningBatchConsumer> =>
    startBatchConsumer({
      name: durable,
      consumer,
      handler,
      batchSize: settings.batchSize,
      maxInFlight: settings.batchesInFlight,
      maxDeliver: settings.maxDeliver,
      deadLetter: deadLetterTo(deps.js, n, durable),
      classify: classifyPgError,
      metrics: deps.metrics,
      logger: deps.logger.child({ consumer: durable }),
      tracer: deps.tracer,
      // Three keep-alives per ack wait: only a dead worker's messages wait out the ack wait.
      keepAliveMs: Math.max(100, Math.floor(settings.ackWaitMs / 3)),
      ...(deps.onCommitted === undefined
        ? {}
        : { onCommitted: (m) => deps.onCommitted?.(which, m) }),
    });
  const consumers = [
    await start(
      'events',
      eventsConsumer,
      settings.eventsDurable,
      eventBatchHandler(deps.db, { maxMessageBytes: settings.maxMessageBytes, names: n }),
    ),
    await start(
      'commands',
      commandsConsumer,
      settings.commandsDurable,
      commandBatchHandler({
        db: deps.db,
        nc: deps.nc,
        names: n,
        maxMessageBytes: settings.maxMessageBytes,
      }),
    ),
  ];
  deps.logger.info(
    { events: settings.eventsDurable, commands: settings.commandsDurable },
    'persistence worker consuming',
  );
  return {
    async stop() {
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
