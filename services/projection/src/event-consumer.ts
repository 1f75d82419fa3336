import { type Decoded, publishDeadLetter, startPullConsumer } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { type DecodedDelivery, decodeDelivery } from './decode-delivery.ts';
import type { Delivery } from './delivery.ts';

/** What {@link consumeEvents} hands each decoded message to, and where refusals go. */
export interface ConsumeEventsOptions {
  readonly js: JetStreamClient;
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
  return startPullConsumer<Extract<DecodedDelivery, { ok: true }>>({
    name: options.durable,
    consumer: await options.js.consumers.get(options.names.eventsStream, options.durable),
    decode,
    // Handed over at once: the applier holds, applies and settles each delivery itself.
    deliver: async (batch) => {
      for (const { msg, value } of batch) {
        options.accept(
          {
            event: value.event,
            prev: value.prev,
            deliveryCount: msg.info.deliveryCount,
            storedAt: Math.floor(msg.info.timestampNanos / 1e6),
            ack: () => msg.ack(),
            nak: (delayMs) => msg.nak(delayMs),
            working: () => msg.working(),
            deadLetter: (code, reason) => deadLetter(msg, code, reason),
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
}
