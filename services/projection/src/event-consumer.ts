import { type Decoded, publishDeadLetter, startPullConsumer } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { type DecodedDelivery, decodeDelivery } from './decode-delivery.ts';
import type { Delivery } from './delivery.ts';

/** What {@link consumeEvents} hands each decoded message to, and where refusals go. */
export interface ConsumeEventsOptions {
  readonly js: JetStreamClient;
  /** The shared durable, bound (`ensureDurableConsumer`). */
  readonly consumer: Consumer;
  readonly names: Names;
  readonly durable: string;
  /** Receives every valid delivery with the message body as stored (for forwarding). */
  readonly accept: (delivery: Delivery, data: Uint8Array) => void;
  /** Told about a refused event so that its session is reported as blocked. */
  readonly refused: (sessionId: string | undefined, seq: number | undefined, code: string) => void;
  readonly batch: number;
  readonly logger?: Logger;
}

/** A running consume loop. */
export interface EventConsumer {
  /**
   * Events not settled yet, as this instance knows them without asking the server: those
   * still in the stream after its last delivery (the delivery's own count), plus the ones
   * it was handed and has not acked, nak-ed or dead-lettered.
   */
  backlog(): number;
  /** Stops pulling; resolves when the loop has ended. */
  stop(): Promise<void>;
}

/**
 * Pulls the projection consumer (DESIGN.md flow 3) on the bus's one pull loop and turns each
 * message into a {@link Delivery} handed to `accept` at once (the applier settles it later).
 * A message that fails decoding (schema, headers) is dead-lettered at once with its code and
 * reason (DESIGN.md invariant "bad input never poisons a consumer").
 */
export async function consumeEvents(options: ConsumeEventsOptions): Promise<EventConsumer> {
  const logger = options.logger ?? noopLogger;
  const dlq = options.names.deadLetterSubject(options.durable);
  const park = (msg: JsMsg, code: string, reason: string) =>
    publishDeadLetter(options.js, dlq, msg, { code, reason }, 64 * 1024);
  const deadLetter = (msg: JsMsg, code: string, reason: string) => {
    park(msg, code, reason).then(
      () => msg.ack(),
      (error: unknown) => {
        logger.error({ err: error, code }, 'dead-letter publish failed; naking');
        msg.nak(1_000);
      },
    );
  };
  const decode = (msg: JsMsg): Decoded<Extract<DecodedDelivery, { ok: true }>> => {
    const decoded = decodeDelivery(
      {
        subject: msg.subject,
        data: msg.data,
        header: (name) => msg.headers?.get(name) || undefined,
      },
      options.names,
    );
    if (decoded.ok) return { kind: 'apply', value: decoded };
    logger.error(
      {
        sessionId: decoded.sessionId,
        seq: decoded.seq,
        code: decoded.code,
        reason: decoded.reason,
      },
      'projection refused an event; dead-lettered',
    );
    options.refused(decoded.sessionId, decoded.seq, decoded.code);
    return { kind: 'invalid', code: decoded.code, reason: decoded.reason };
  };
  // The backlog from the deliveries themselves (0246): a consumer info request on NATS 2.9
  // recounts a wildcard consumer's pending messages, which costs the server more the
  // further the consumer is behind.
  let streamPending = 0;
  let unsettled = 0;
  /** Counts one delivery settled, the first time it is called. */
  const settledOnce = () => {
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      unsettled -= 1;
    };
  };
  const running = await startPullConsumer<Extract<DecodedDelivery, { ok: true }>>({
    name: options.durable,
    consumer: options.consumer,
    decode,
    // Handed over at once: the applier holds, applies and settles each delivery itself.
    deliver: async (batch) => {
      for (const { msg, value } of batch) {
        streamPending = msg.info.pending;
        unsettled += 1;
        const settle = settledOnce();
        options.accept(
          {
            event: value.event,
            prev: value.prev,
            deliveryCount: msg.info.deliveryCount,
            storedAt: Math.floor(msg.info.timestampNanos / 1e6),
            ack: () => {
              settle();
              msg.ack();
            },
            nak: (delayMs) => {
              settle();
              msg.nak(delayMs);
            },
            working: () => msg.working(),
            deadLetter: (code, reason) => {
              settle();
              deadLetter(msg, code, reason);
            },
          },
          msg.data,
        );
      }
    },
    deadLetter: park,
    batchSize: options.batch,
    maxInFlight: 1,
    logger,
  });
  return {
    backlog: () => streamPending + unsettled,
    stop: () => running.stop(),
  };
}
