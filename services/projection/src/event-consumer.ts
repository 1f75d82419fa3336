import { publishDeadLetter } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { decodeDelivery } from './decode-delivery.ts';
import type { Delivery } from './delivery.ts';

/** Options of {@link ensureProjectionConsumer}. */
export interface ProjectionConsumerOptions {
  readonly names: Names;
  readonly durable: string;
  readonly ackWaitMs: number;
  readonly maxAckPending: number;
}

const CONSUMER_NOT_FOUND = 10014;

/**
 * Creates or updates, idempotently, the durable pull consumer shared by every projection
 * instance: all sessions' `ev` subjects (DESIGN.md flow 3), explicit acks, unlimited
 * deliveries (the applier bounds retries itself: an event waiting for its predecessor must
 * never be dead-lettered for waiting), and a large `max_ack_pending` so out-of-order events
 * can be held in memory while their predecessors are pulled.
 */
export async function ensureProjectionConsumer(
  jsm: JetStreamManager,
  options: ProjectionConsumerOptions,
): Promise<void> {
  const config = {
    durable_name: options.durable,
    filter_subject: options.names.allEventsFilter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(options.ackWaitMs),
    max_ack_pending: options.maxAckPending,
    max_deliver: -1,
  };
  try {
    const info = await jsm.consumers.info(options.names.eventsStream, options.durable);
    if (
      info.config.ack_wait !== config.ack_wait ||
      info.config.max_ack_pending !== config.max_ack_pending
    ) {
      await jsm.consumers.update(options.names.eventsStream, options.durable, {
        ack_wait: config.ack_wait,
        max_ack_pending: config.max_ack_pending,
      });
    }
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || error.code !== CONSUMER_NOT_FOUND) throw error;
    await jsm.consumers.add(options.names.eventsStream, config);
  }
}

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
 * Pulls the projection consumer (DESIGN.md flow 3) and turns each message into a
 * {@link Delivery}. A message that fails decoding (schema, headers) is dead-lettered at once
 * with its code and reason (DESIGN.md invariant "bad input never poisons a consumer").
 */
export async function consumeEvents(options: ConsumeEventsOptions): Promise<EventConsumer> {
  const logger = options.logger ?? noopLogger;
  const consumer = await options.js.consumers.get(options.names.eventsStream, options.durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: options.batch });
  const dlq = options.names.deadLetterSubject(options.durable);
  const deadLetter = (msg: JsMsg, code: string, reason: string) => {
    publishDeadLetter(options.js, dlq, msg, { code, reason }, 64 * 1024).then(
      () => msg.ack(),
      (error: unknown) => {
        logger.error({ err: error, code }, 'dead-letter publish failed; naking');
        msg.nak(1_000);
      },
    );
  };
  const loop = (async () => {
    for await (const msg of messages) {
      const decoded = decodeDelivery(
        {
          subject: msg.subject,
          data: msg.data,
          header: (name) => msg.headers?.get(name) || undefined,
        },
        options.names.prefix,
      );
      if (!decoded.ok) {
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
        deadLetter(msg, decoded.code, decoded.reason);
        continue;
      }
      options.accept(
        {
          event: decoded.event,
          prev: decoded.prev,
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
  })();
  return {
    async stop() {
      messages.stop();
      await loop;
    },
  };
}
