import {
  ATTRS,
  counter,
  extractTraceContext,
  type Logger,
  METRICS,
  noopLogger,
  secondsHistogram,
  withSpan,
} from '@agentwire/telemetry';
import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import { type MsgHdrs, nanos } from '@nats-io/transport-node';
import { type Meter, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { type DeadLetterReason, publishDeadLetter } from './dead-letter.ts';

/** What a handler decides for one message. */
export type HandlerResult =
  | 'ack'
  | 'retry'
  | { readonly deadLetter: string; readonly code?: string };

/** The outcome of decoding one message body: a value, or why it is unusable. */
export type DecodeResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: string; readonly reason: string };

/** What a handler learns about the message besides its decoded value. */
export interface MessageContext {
  readonly subject: string;
  readonly streamSequence: number;
  /** 1 on first delivery. */
  readonly deliveryCount: number;
  readonly headers: MsgHdrs | undefined;
  /** The span the handler runs in, child of the message's `traceparent`. */
  readonly span: Span;
}

/** Options of {@link runPullConsumer}. */
export interface RunPullConsumerOptions<T> {
  readonly js: JetStreamClient;
  readonly stream: string;
  /** Durable name shared by every instance (competing consumers); a subject token. */
  readonly durable: string;
  /** One filter subject (NATS 2.9 has no multi-filter consumers). */
  readonly filterSubject: string;
  /** Turns the body into a value; a failure is dead-lettered at once (it cannot improve). */
  readonly decode: (data: Uint8Array, msg: JsMsg) => DecodeResult<T>;
  readonly handler: (value: T, context: MessageContext) => Promise<HandlerResult>;
  /** Where poison messages go (`names(prefix).deadLetterSubject(durable)`). */
  readonly deadLetterSubject: string;
  /** Deliveries before a retried or throwing message is dead-lettered (default 5). */
  readonly maxDeliver?: number;
  /** Nak delays by delivery count, ms; the last repeats (default 100, 500, 2000, 5000). */
  readonly backoffMs?: readonly number[];
  /** Bodies above this many bytes are dead-lettered as `oversized` (default 1 MiB). */
  readonly maxMessageBytes?: number;
  /** Server-side ack wait, ms (default 30 s). */
  readonly ackWaitMs?: number;
  /** Messages handled at once (default 1: in delivery order). */
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly tracer?: Tracer;
  readonly meter?: Meter;
}

/** A running consumer. */
export interface PullConsumerHandle {
  /** Drains: stops pulling, waits for in-flight handlers (which ack), then resolves. */
  stop(): Promise<void>;
  /** Resolves when the consume loop has ended (after {@link stop} or a fatal error). */
  readonly done: Promise<void>;
  /** The consumer's lag: messages not yet delivered and delivered but unacked. */
  pending(): Promise<{ readonly numPending: number; readonly numAckPending: number }>;
}

const CONSUMER_EXISTS_CODES = new Set([10013, 10148]);

/**
 * Runs a durable pull consumer for a worker (DESIGN.md invariants "Nothing acknowledged is
 * lost" and "Bad input never poisons a consumer"): each message is size-checked, decoded and
 * handed to `handler` in a span parented on its `traceparent`. `'ack'` acks (after the
 * handler's commit), `'retry'` naks with a backoff by delivery count, `{ deadLetter }` parks
 * it on the dead-letter subject with its reason and acks. An undecodable or oversized body
 * is parked at once; a message still failing after `maxDeliver` deliveries is parked as
 * `max_deliveries`. The consumer goes on with the next message in every case.
 */
export async function runPullConsumer<T>(
  options: RunPullConsumerOptions<T>,
): Promise<PullConsumerHandle> {
  const maxDeliver = options.maxDeliver ?? 5;
  const jsm = await options.js.jetstreamManager(false);
  await ensureDurable(jsm, options.stream, {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: options.filterSubject,
    ack_wait: nanos(options.ackWaitMs ?? 30_000),
    // One spare delivery past ours, so a crash during the last attempt is still parked.
    max_deliver: maxDeliver + 1,
    max_ack_pending: 1000,
  });
  const consumer = await options.js.consumers.get(options.stream, options.durable);
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const messages = await consumer.consume({ max_messages: Math.max(16, concurrency * 4) });
  const process = messageProcessor(options, maxDeliver);
  const done = loop(messages, concurrency, process);
  return {
    done,
    async stop() {
      await messages.close();
      await done;
    },
    async pending() {
      const info = await consumer.info();
      return { numPending: info.num_pending, numAckPending: info.num_ack_pending };
    },
  };
}

async function ensureDurable(
  jsm: Awaited<ReturnType<JetStreamClient['jetstreamManager']>>,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
): Promise<void> {
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || !CONSUMER_EXISTS_CODES.has(error.code))
      throw error;
    const { durable_name, deliver_policy: _d, ...update } = config;
    await jsm.consumers.update(stream, durable_name, update);
  }
}

async function loop(
  messages: ConsumerMessages,
  concurrency: number,
  process: (m: JsMsg) => Promise<void>,
) {
  const inFlight = new Set<Promise<void>>();
  for await (const m of messages) {
    const p = process(m).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}

function messageProcessor<T>(options: RunPullConsumerOptions<T>, maxDeliver: number) {
  const logger = (options.logger ?? noopLogger).child({
    component: 'pull-consumer',
    consumer: options.durable,
  });
  const tracer = options.tracer ?? trace.getTracer('@agentwire/bus');
  const maxBytes = options.maxMessageBytes ?? 1024 * 1024;
  const backoff = options.backoffMs ?? [100, 500, 2000, 5000];
  const meter = options.meter;
  const processed =
    meter && counter(meter, METRICS.messagesProcessed, 'Messages a consumer finished');
  const parked =
    meter &&
    counter(meter, METRICS.messagesDeadLettered, 'Messages parked on a dead-letter subject');
  const duration =
    meter && secondsHistogram(meter, METRICS.handlerDuration, 'Handler time per message');
  const base = { [ATTRS.consumer]: options.durable };

  const deadLetter = async (m: JsMsg, why: DeadLetterReason) => {
    await publishDeadLetter(options.js, options.deadLetterSubject, m, why, maxBytes);
    m.ack();
    parked?.add(1, { ...base, [ATTRS.deadLetterCode]: why.code });
    logger.warn(
      { subject: m.subject, streamSequence: m.seq, code: why.code, reason: why.reason },
      'dead-lettered',
    );
  };

  const handle = async (m: JsMsg, span: Span): Promise<string> => {
    if (m.data.length > maxBytes) {
      await deadLetter(m, {
        code: 'oversized',
        reason: `message of ${m.data.length} bytes exceeds the limit of ${maxBytes} bytes`,
      });
      return 'dead_letter';
    }
    const decoded = options.decode(m.data, m);
    if (!decoded.ok) {
      await deadLetter(m, { code: decoded.code, reason: decoded.reason });
      return 'dead_letter';
    }
    const attempt = m.info.deliveryCount;
    let result: HandlerResult;
    try {
      result = await options.handler(decoded.value, {
        subject: m.subject,
        streamSequence: m.seq,
        deliveryCount: attempt,
        headers: m.headers,
        span,
      });
    } catch (error) {
      logger.error(
        { err: error, subject: m.subject, streamSequence: m.seq, attempt },
        'handler threw',
      );
      result = {
        deadLetter: `handler failed: ${error instanceof Error ? error.message : String(error)}`,
        code: 'handler_error',
      };
      if (attempt < maxDeliver) result = 'retry';
    }
    if (result === 'ack') {
      m.ack();
      return 'ack';
    }
    if (result === 'retry') {
      if (attempt >= maxDeliver) {
        await deadLetter(m, {
          code: 'max_deliveries',
          reason: `still failing after ${attempt} deliveries`,
        });
        return 'dead_letter';
      }
      m.nak(backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 0);
      return 'retry';
    }
    await deadLetter(m, { code: result.code ?? 'rejected', reason: result.deadLetter });
    return 'dead_letter';
  };

  return async (m: JsMsg): Promise<void> => {
    const started = performance.now();
    const parent = extractTraceContext(m.headers ?? { get: () => undefined, set: () => {} });
    try {
      const outcome = await withSpan(
        tracer,
        `process ${options.durable}`,
        parent,
        (span) => handle(m, span),
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            [ATTRS.messagingSystem]: 'nats',
            [ATTRS.messagingDestination]: m.subject,
            [ATTRS.deliveryCount]: m.info.deliveryCount,
          },
        },
      );
      processed?.add(1, { ...base, [ATTRS.outcome]: outcome });
      duration?.record((performance.now() - started) / 1000, { ...base, [ATTRS.outcome]: outcome });
    } catch (error) {
      // Dead-lettering itself failed (broker down): leave the message unacked for redelivery.
      logger.error(
        { err: error, subject: m.subject, streamSequence: m.seq },
        'message left for redelivery',
      );
      m.nak(backoff[backoff.length - 1] ?? 1000);
    }
  };
}
