import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
  ReplayPolicy,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** A durable pull consumer shared by a service's instances (competing consumers). */
export interface DurableConsumerSpec {
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string;
  /** Time the server waits for an ack before redelivering (a dead instance's messages). */
  readonly ackWaitMs: number;
  /** Most unacknowledged messages across all instances. */
  readonly maxAckPending: number;
}

const CONSUMER_NOT_FOUND = 10014;

/**
 * Creates the durable consumer, or updates an existing one whose ack wait or pending limit
 * differs; safe from several processes at once (DESIGN.md "Processes": provision what it
 * owns idempotently). Deliveries are unlimited on purpose: the services bound redeliveries
 * of failing messages themselves and dead-letter them, while a message failing only because
 * Postgres is away, or an event waiting for its predecessor, must wait as long as it takes
 * (docs/decisions/0051).
 */
export async function ensureDurableConsumer(
  jsm: JetStreamManager,
  spec: DurableConsumerSpec,
): Promise<void> {
  const config = {
    durable_name: spec.durable,
    filter_subject: spec.filterSubject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: spec.maxAckPending,
  };
  try {
    const info = await jsm.consumers.info(spec.stream, spec.durable);
    if (
      info.config.ack_wait === config.ack_wait &&
      info.config.max_ack_pending === config.max_ack_pending
    ) {
      return;
    }
    await jsm.consumers.update(spec.stream, spec.durable, {
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
    });
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || error.code !== CONSUMER_NOT_FOUND) throw error;
    try {
      await jsm.consumers.add(spec.stream, config);
    } catch (raced) {
      // Another instance created it first: bring it to this configuration.
      if (!(raced instanceof JetStreamApiError)) throw raced;
      const { durable_name: _d, ...update } = config;
      await jsm.consumers.update(spec.stream, spec.durable, update);
    }
  }
}
