import type { Names } from '@agentwire/contracts';
import type { Logger } from '@agentwire/telemetry';
import {
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import { lastSessionSequence } from './session-state.ts';

const STREAM_NOT_FOUND = 10059;

/** Pull expiry of the follower's consumer: the server sends a heartbeat every half of it. */
const FOLLOW_EXPIRES_MS = 5_000;
/** Silence (no message, no heartbeat) after which the consumer counts as lost. */
const STALL_MS = 3 * (FOLLOW_EXPIRES_MS / 2);
const RETRY_MS = 250;

/**
 * Creates the ordered consumer and starts consuming, from `streamSequence + 1` when a
 * message was read already, else from the base. Retries while JetStream cannot answer
 * (a cluster electing a leader, a client reconnecting) until `stopped()`; a missing stream
 * is thrown.
 */
export async function openConsumer(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
  afterSequence: number,
  streamSequence: number,
  stopped: () => boolean,
): Promise<ConsumerMessages | undefined> {
  for (;;) {
    try {
      const start =
        streamSequence > 0
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: streamSequence + 1 }
          : await startOptions(js, n, sessionId, afterSequence);
      const consumer = await js.consumers.get(n.eventsStream, {
        filter_subjects: n.sessionFilter(sessionId),
        ...start,
      });
      if (stopped()) return undefined;
      return await consumer.consume({ max_messages: 256, expires: FOLLOW_EXPIRES_MS });
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) throw error;
      if (refused(error)) throw error; // a permission violation does not go away
      if (stopped()) return undefined;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/** Whether a consumer was given up as stalled, and the clock of its last sign of life. */
export interface StallWatch {
  stalled: boolean;
  alive(): void;
}

/**
 * Closes `messages` when neither a message nor a heartbeat came for {@link STALL_MS}: the
 * client's ordered consumer does not always come back by itself when its server dies
 * (nats.js 3.4 retries a consumer info against the dead node, heartbeat monitor off, for as
 * long as the node is down, and sometimes for good), so the follower recreates it from its
 * last stream sequence (docs/decisions/0144).
 */
export function watchForStall(messages: ConsumerMessages, logger: Logger): StallWatch {
  let last = Date.now();
  const watch: StallWatch = {
    stalled: false,
    alive: () => {
      last = Date.now();
    },
  };
  const timer = setInterval(() => {
    if (Date.now() - last < STALL_MS) return;
    logger.warn({ silentMs: Date.now() - last }, 'follower consumer stalled; recreating it');
    watch.stalled = true;
    clearInterval(timer);
    void messages.close();
  }, 1_000);
  timer.unref();
  void messages.closed().finally(() => clearInterval(timer));
  void (async () => {
    for await (const status of messages.status()) if (status.type === 'heartbeat') watch.alive();
  })().catch(() => undefined);
  return watch;
}

/** Whether `error` (or its cause) is the server refusing this user the subject. */
function refused(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.name === 'PermissionViolationError') return true;
  }
  return false;
}

async function startOptions(
  js: JetStreamClient,
  n: Names,
  sessionId: string,
  afterSequence: number,
): Promise<Partial<OrderedConsumerOptions>> {
  if (afterSequence > 0) {
    const jsm = await js.jetstreamManager(false);
    const tip = await lastSessionSequence(jsm, n, sessionId);
    if (tip !== null && tip.sequenceNumber <= afterSequence) {
      return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: tip.streamSequence + 1 };
    }
  }
  return { deliver_policy: DeliverPolicy.All };
}
