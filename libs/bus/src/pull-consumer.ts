import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';

/**
 * What decoding one message gave: a value to deliver, a message to acknowledge untouched
 * (`skip`), or invalid input to dead-letter at once with a stable code and a reason naming
 * what was wrong (redelivery cannot fix a message that does not parse).
 */
export type Decoded<T> =
  | { readonly kind: 'apply'; readonly value: T }
  | { readonly kind: 'skip'; readonly why: string }
  | { readonly kind: 'invalid'; readonly code: string; readonly reason: string };

/** One decoded message handed to the consumer's `deliver`. */
export interface Received<T> {
  readonly msg: JsMsg;
  readonly value: T;
}

/** Options of {@link startPullConsumer}. */
export interface PullConsumerOptions<T> {
  /** Label of logs (the durable name). */
  readonly name: string;
  readonly consumer: Consumer;
  /** Cheap and synchronous; a throw counts as invalid input. */
  readonly decode: (msg: JsMsg) => Decoded<T>;
  /**
   * Takes one batch of decoded messages and settles every one of them (ack, nak, dead
   * letter), now or later; the loop counts the batch in flight until this resolves.
   */
  readonly deliver: (batch: readonly Received<T>[]) => Promise<void>;
  /** Parks an invalid message with its code and reason; the loop then acks it. */
  readonly deadLetter: (msg: JsMsg, code: string, reason: string) => Promise<void>;
  /** Told about each message dead-lettered as invalid (metrics). */
  readonly onInvalid?: (code: string) => void;
  /** Told about each message skipped (acked untouched). */
  readonly onSkipped?: () => void;
  /** Most messages per batch; the pull buffer holds twice as many. */
  readonly batchSize: number;
  /** Batches delivered at once (each `deliver` call pending counts one). */
  readonly maxInFlight: number;
  /**
   * How often every message received and not yet handed over or delivered is told to the
   * broker as in progress, so that a short ack wait redelivers only a dead instance's
   * messages, not a slow one's. Default: never.
   */
  readonly keepAliveMs?: number;
  readonly logger?: Logger;
}

/** A running consumer. */
export interface RunningPullConsumer {
  /** Stops pulling, delivers what was received, waits for the batches in flight. */
  stop(): Promise<void>;
}

/** Nak delay of a message whose dead-lettering failed, by delivery count: 100 ms .. 10 s. */
function retryDelayMs(deliveryCount: number): number {
  return Math.min(10_000, 100 * 2 ** Math.min(deliveryCount, 7));
}

/**
 * The one pull-consumer loop of the services (the persistence worker's consumers, the
 * projection's): messages are buffered as they arrive and decoded; skips are acked and
 * invalid ones dead-lettered at once; the rest are delivered in batches, a full batch
 * beside the ones in flight, a partial one only when none is (so batches stay full under
 * load and a lone message goes at once when idle). `stop` drains.
 */
export async function startPullConsumer<T>(
  options: PullConsumerOptions<T>,
): Promise<RunningPullConsumer> {
  const logger = options.logger ?? noopLogger;
  const queue: JsMsg[] = [];
  const inFlight = new Set<Promise<void>>();
  const delivering = new Set<readonly JsMsg[]>();
  let wake: (() => void) | undefined;
  let stopping = false;
  const keepAlive =
    options.keepAliveMs === undefined
      ? undefined
      : setInterval(() => {
          for (const msg of queue) msg.working();
          for (const batch of delivering) for (const msg of batch) msg.working();
        }, options.keepAliveMs);
  keepAlive?.unref();
  const messages: ConsumerMessages = await options.consumer.consume({
    max_messages: options.batchSize * 2,
    // No consumer info after a reconnect or missed heartbeats: on NATS 2.9 one makes the
    // server recount a wildcard consumer's pending on every delivery (docs/decisions/0250).
    bind: true,
    callback: (msg) => {
      queue.push(msg);
      if (queue.length >= options.batchSize || inFlight.size === 0) wake?.();
    },
  });

  const settleInvalid = async (msg: JsMsg, code: string, reason: string) => {
    try {
      await options.deadLetter(msg, code, reason);
    } catch (error) {
      logger.warn({ err: error, consumer: options.name }, 'dead-letter publish failed; nak');
      msg.nak(retryDelayMs(msg.info.deliveryCount));
      return;
    }
    msg.ack();
    options.onInvalid?.(code);
    logger.warn(
      { consumer: options.name, code, reason, subject: msg.subject, streamSeq: msg.seq },
      'message dead-lettered',
    );
  };

  const deliverBatch = async (batch: readonly JsMsg[]) => {
    const received: Received<T>[] = [];
    for (const msg of batch) {
      const decoded = safeDecode(options.decode, msg);
      if (decoded.kind === 'skip') {
        msg.ack();
        options.onSkipped?.();
      } else if (decoded.kind === 'invalid') {
        await settleInvalid(msg, decoded.code, decoded.reason);
      } else {
        received.push({ msg, value: decoded.value });
      }
    }
    if (received.length > 0) await options.deliver(received);
  };

  const loop = (async () => {
    while (!stopping || queue.length > 0) {
      if (queue.length === 0 || (queue.length < options.batchSize && inFlight.size > 0)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      const batch = queue.splice(0, options.batchSize);
      delivering.add(batch);
      const running = deliverBatch(batch).catch((error: unknown) => {
        logger.error({ err: error, consumer: options.name }, 'batch delivery failed unexpectedly');
        for (const msg of batch) msg.nak(retryDelayMs(msg.info.deliveryCount));
      });
      inFlight.add(running);
      void running.finally(() => {
        inFlight.delete(running);
        delivering.delete(batch);
        wake?.();
      });
      while (inFlight.size >= options.maxInFlight) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    clearInterval(keepAlive);
  })();

  return {
    async stop() {
      stopping = true;
      await messages.close();
      wake?.();
      await loop;
      logger.info({ consumer: options.name }, 'consumer drained');
    },
  };
}

function safeDecode<T>(decode: (msg: JsMsg) => Decoded<T>, msg: JsMsg): Decoded<T> {
  try {
    return decode(msg);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'invalid', code: 'invalid_envelope', reason: `decode threw: ${message}` };
  }
}
