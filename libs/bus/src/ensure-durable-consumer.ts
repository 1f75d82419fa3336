import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  type ConsumerInfo,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
  ReplayPolicy,
} from '@nats-io/jetstream';
import { type NatsConnection, nanos } from '@nats-io/transport-node';

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

/** Consumers listed per page of `CONSUMER.NAMES`. */
interface NamesPage {
  readonly consumers?: readonly string[] | null;
  readonly total?: number;
  readonly error?: { readonly code: number; readonly description: string };
}

/**
 * True when `stream` has a consumer named `durable`. Asked with `CONSUMER.NAMES`, which
 * reads no consumer's state: a consumer info (or a create, whose reply is one) makes NATS
 * 2.9 recount a wildcard-filtered consumer's pending messages on every delivery after it,
 * and a consumer other instances are draining a backlog through slows down tenfold
 * (docs/decisions/0250).
 */
async function durableExists(
  nc: NatsConnection,
  jsm: JetStreamManager,
  stream: string,
  durable: string,
): Promise<boolean> {
  const prefix = jsm.getOptions().apiPrefix ?? '$JS.API';
  let offset = 0;
  for (;;) {
    const reply = await nc.request(
      `${prefix}.CONSUMER.NAMES.${stream}`,
      JSON.stringify({ offset }),
    );
    const page = reply.json<NamesPage>();
    if (page.error !== undefined) {
      throw new Error(
        `consumer names of ${stream}: ${page.error.description} (${page.error.code})`,
      );
    }
    const found = page.consumers ?? [];
    if (found.includes(durable)) return true;
    offset += found.length;
    if (found.length === 0 || offset >= (page.total ?? 0)) return false;
  }
}

/** What the client needs to pull from an existing consumer, without asking for its info. */
function boundInfo(spec: DurableConsumerSpec, config: ConsumerConfig): ConsumerInfo {
  return { name: spec.durable, stream_name: spec.stream, config } as ConsumerInfo;
}

/**
 * Creates the durable consumer when it does not exist yet, and returns it bound for
 * pulling; safe from several processes at once (DESIGN.md "Processes": provision what it
 * owns idempotently). An existing consumer is used as it is, without a consumer info:
 * joining instances must not slow down the ones already draining it (docs/decisions/0250).
 * Its ack wait and pending limit are those it was created with; a changed
 * `AW_ACK_WAIT_MS` or pending limit applies once the durable is deleted while no instance
 * runs. Deliveries are unlimited on purpose: the services bound redeliveries of failing
 * messages themselves and dead-letter them, while a message failing only because Postgres
 * is away, or an event waiting for its predecessor, must wait as long as it takes
 * (docs/decisions/0051).
 */
export async function ensureDurableConsumer(
  nc: NatsConnection,
  jsm: JetStreamManager,
  spec: DurableConsumerSpec,
): Promise<Consumer> {
  const config: ConsumerConfig = {
    durable_name: spec.durable,
    filter_subject: spec.filterSubject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: spec.maxAckPending,
  } as ConsumerConfig;
  const consumers = jsm.jetstream().consumers;
  if (await durableExists(nc, jsm, spec.stream, spec.durable)) {
    return consumers.getConsumerFromInfo(boundInfo(spec, config));
  }
  try {
    return consumers.getConsumerFromInfo(await jsm.consumers.add(spec.stream, config));
  } catch (raced) {
    // Another instance created it between the names and the add (with other settings:
    // the server refuses this one's): use it as it is.
    if (!(raced instanceof JetStreamApiError)) throw raced;
    if (!(await durableExists(nc, jsm, spec.stream, spec.durable))) throw raced;
    return consumers.getConsumerFromInfo(boundInfo(spec, config));
  }
}
