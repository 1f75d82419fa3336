import { type Received, startPullConsumer } from '@agentwire/bus';
import { backoffMs } from '@agentwire/service';
import { ATTRS, extractTraceContext, type HeaderCarrier, type Logger } from '@agentwire/telemetry';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import {
  type Attributes,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import type { Decoded, InvalidCode } from './decoded-message.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

/** How one consumer turns messages into committed rows. */
export interface BatchHandler<T> {
  /** Pure and cheap: header checks first, then parse (R6: other types are skipped unparsed). */
  decode(msg: JsMsg): Decoded<T>;
  /** Applies every item in one transaction; throws (a classifiable error) when it fails. */
  applyAll(items: readonly T[]): Promise<void>;
  /** Runs after the commit, before the acks (the command confirmations). */
  afterCommit?(items: readonly T[]): Promise<void>;
  /** Span attributes of one item. */
  attributes?(item: T): Attributes;
}

/** Where a message that cannot be applied goes, with its reason (bus dead-letter subject). */
export type DeadLetter = (msg: JsMsg, code: InvalidCode, reason: string) => Promise<void>;

/** Options of {@link startBatchConsumer}. */
export interface BatchConsumerOptions<T> {
  /** Label used in logs, metrics and span names (the durable name). */
  readonly name: string;
  readonly consumer: Consumer;
  readonly handler: BatchHandler<T>;
  /** Most messages applied in one transaction; also the pull buffer. */
  readonly batchSize: number;
  /**
   * Batches committing at once, each in its own transaction (and pool connection). The
   * store's writes are order-tolerant (a late write never overwrites a newer state), so
   * batches may commit in any order, as they do across worker instances.
   */
  readonly maxInFlight: number;
  /** Deliveries of a message whose apply keeps failing non-retryably before it is dead-lettered. */
  readonly maxDeliver: number;
  readonly deadLetter: DeadLetter;
  /** The store's error classification: retryable errors are nak-ed with backoff, forever. */
  readonly classify: (err: unknown) => {
    readonly retryable: boolean;
    readonly code?: string | undefined;
  };
  readonly metrics: WorkerMetrics;
  readonly logger: Logger;
  readonly tracer: Tracer;
  /** Called after a batch's commit with its messages (benchmarks measure lag with it). */
  readonly onCommitted?: (messages: readonly JsMsg[]) => void;
  /**
   * How often every received message not yet settled (queued, or in a committing batch) is
   * told to the broker as in progress, so that a short ack wait redelivers only a dead
   * worker's messages, not a slow one's. Default: never.
   */
  readonly keepAliveMs?: number;
}

/** A running consumer. */
export interface RunningBatchConsumer {
  /** Stops pulling, finishes (commits and acks) what was received, then resolves. */
  stop(): Promise<void>;
}

interface Pending<T> {
  readonly msg: JsMsg;
  readonly value: T;
  readonly span: Span;
}

const emptyHeaders: HeaderCarrier = { get: () => undefined, set: () => {} };

/**
 * Runs one durable pull consumer (issue 4 item 3) on the bus's one pull loop
 * (`startPullConsumer`): batches of up to `batchSize` messages, each applied in one
 * transaction, up to `maxInFlight` committing at once, each message acked only after its
 * commit. A retryable failure (connection, serialisation, deadlock) naks the batch with
 * backoff and never gives up; any other failure retries each message alone, so one bad
 * message cannot hold back its batch, and dead-letters it after `maxDeliver` deliveries.
 * Invalid input is dead-lettered at once: redelivery cannot fix a message that does not parse.
 */
export async function startBatchConsumer<T>(
  options: BatchConsumerOptions<T>,
): Promise<RunningBatchConsumer> {
  const { name, metrics } = options;
  return startPullConsumer<T>({
    name,
    consumer: options.consumer,
    decode: (msg) => options.handler.decode(msg),
    deliver: async (batch) => {
      await commitBatch(
        options,
        batch.map((r) => pendingOf(options, r)),
      );
      const last = batch[batch.length - 1];
      if (last !== undefined) metrics.setLag(name, last.msg.info.pending);
    },
    deadLetter: (msg, code, reason) => options.deadLetter(msg, code as InvalidCode, reason),
    onInvalid: (code) => countDeadLettered(options, code),
    onSkipped: () =>
      metrics.processed.add(1, { [ATTRS.consumer]: name, [ATTRS.outcome]: 'skipped' }),
    batchSize: options.batchSize,
    maxInFlight: options.maxInFlight,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    logger: options.logger,
  });
}

/** A decoded message with its span, parented on its `traceparent`. */
function pendingOf<T>(options: BatchConsumerOptions<T>, r: Received<T>): Pending<T> {
  return { msg: r.msg, value: r.value, span: startSpan(options, r.msg, r.value) };
}

/** Applies a batch in one transaction; on failure retries or isolates the culprit. */
async function commitBatch<T>(
  options: BatchConsumerOptions<T>,
  pending: readonly Pending<T>[],
): Promise<void> {
  const { name } = options;
  if (pending.length === 0) return;
  const failure = await applyAndAck(options, pending);
  if (failure === undefined) return;
  const c = options.classify(failure);
  if (c.retryable) {
    options.logger.warn(
      { err: failure, consumer: name, code: c.code, count: pending.length },
      'retryable store failure; nak with backoff',
    );
    for (const p of pending) retry(options, p, failure);
    return;
  }
  // Isolate the culprit: apply each message alone.
  for (const p of pending) {
    const err = await applyAndAck(options, [p]);
    if (err === undefined) continue;
    const single = options.classify(err);
    if (single.retryable || p.msg.info.deliveryCount < options.maxDeliver) {
      retry(options, p, err);
    } else {
      endSpan(p.span, err);
      await deadLetterOrRetry(
        options,
        p.msg,
        'apply_failed',
        `apply failed after ${p.msg.info.deliveryCount} deliveries: ${messageOf(err)}`,
      );
    }
  }
}

async function applyAndAck<T>(
  options: BatchConsumerOptions<T>,
  pending: readonly Pending<T>[],
): Promise<unknown> {
  const started = performance.now();
  try {
    await options.handler.applyAll(pending.map((p) => p.value));
  } catch (error) {
    return error;
  }
  const committed = Date.now();
  options.metrics.commitDuration.record((performance.now() - started) / 1000, {
    [ATTRS.consumer]: options.name,
  });
  if (options.handler.afterCommit !== undefined) {
    try {
      await options.handler.afterCommit(pending.map((p) => p.value));
    } catch (error) {
      options.logger.warn({ err: error, consumer: options.name }, 'after-commit step failed');
    }
  }
  const consumer = { [ATTRS.consumer]: options.name };
  for (const p of pending) {
    p.msg.ack();
    const lagMs = committed - p.msg.info.timestampNanos / 1e6;
    options.metrics.commitLag.record(Math.max(0, lagMs) / 1000, consumer);
    endSpan(p.span);
  }
  options.metrics.processed.add(pending.length, {
    [ATTRS.consumer]: options.name,
    [ATTRS.outcome]: 'applied',
  });
  options.onCommitted?.(pending.map((p) => p.msg));
  return undefined;
}

function retry<T>(options: BatchConsumerOptions<T>, p: Pending<T>, err: unknown): void {
  p.msg.nak(backoffMs(p.msg.info.deliveryCount));
  options.metrics.retried.add(1, { [ATTRS.consumer]: options.name });
  endSpan(p.span, err);
}

async function deadLetterOrRetry<T>(
  options: BatchConsumerOptions<T>,
  msg: JsMsg,
  code: InvalidCode,
  reason: string,
): Promise<void> {
  try {
    await options.deadLetter(msg, code, reason);
  } catch (error) {
    options.logger.warn({ err: error, consumer: options.name }, 'dead-letter publish failed; nak');
    msg.nak(backoffMs(msg.info.deliveryCount));
    return;
  }
  msg.ack();
  options.logger.warn(
    { consumer: options.name, code, reason, subject: msg.subject, streamSeq: msg.seq },
    'message dead-lettered',
  );
  countDeadLettered(options, code);
}

function countDeadLettered<T>(options: BatchConsumerOptions<T>, code: string): void {
  options.metrics.deadLettered.add(1, {
    [ATTRS.consumer]: options.name,
    [ATTRS.deadLetterCode]: code,
  });
  options.metrics.processed.add(1, {
    [ATTRS.consumer]: options.name,
    [ATTRS.outcome]: 'dead_lettered',
  });
}

/**
 * The message's span, a child of its `traceparent`. Attributes are set only on a recording
 * span: with tracing off (the no-op tracer) a message costs no attribute objects.
 */
function startSpan<T>(options: BatchConsumerOptions<T>, msg: JsMsg, value: T): Span {
  const parent = extractTraceContext(msg.headers ?? emptyHeaders);
  const span = options.tracer.startSpan(
    `${options.name} process`,
    { kind: SpanKind.CONSUMER },
    parent,
  );
  if (span.isRecording()) {
    span.setAttributes({
      [ATTRS.messagingSystem]: 'nats',
      [ATTRS.messagingDestination]: msg.subject,
      [ATTRS.deliveryCount]: msg.info.deliveryCount,
      [ATTRS.consumer]: options.name,
      ...options.handler.attributes?.(value),
    });
  }
  return span;
}

function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(err) });
  }
  span.end();
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
