import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
  ReplayPolicy,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** The durable pull consumer the worker instances share. */
export interface DurableConsumerSpec {
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string;
  /** Time the server waits for an ack before redelivering (a killed worker's messages). */
  readonly ackWaitMs: number;
  /** Most unacknowledged messages across all instances. */
  readonly maxAckPending: number;
}

/**
 * Creates the durable consumer, or updates it to `spec` when it exists with another
 * configuration; safe from several processes at once (DESIGN.md "Processes": provision
 * what it owns idempotently). `max_deliver` is unlimited on purpose: the worker itself
 * bounds redeliveries of failing messages and dead-letters them, while messages failing
 * only because Postgres is away must wait as long as it takes (docs/decisions/0051).
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
    await jsm.consumers.add(spec.stream, config);
  } catch (error) {
    if (!(error instanceof JetStreamApiError)) throw error;
    // Exists with a different configuration (or a creation race): bring it to ours.
    const { durable_name: _d, ...update } = config;
    await jsm.consumers.update(spec.stream, spec.durable, update);
  }
}
