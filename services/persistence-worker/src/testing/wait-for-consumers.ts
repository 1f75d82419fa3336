import type { JetStreamManager } from '@nats-io/jetstream';

/**
 * Pending and unacknowledged counts of one durable consumer.
 *
 * @internal Exported for its tests.
 */
export interface ConsumerBacklog {
  readonly durable: string;
  readonly numPending: number;
  readonly numAckPending: number;
}

/** Reads `num_pending` and `num_ack_pending` of each `[stream, durable]`. */
export async function consumerBacklogs(
  jsm: JetStreamManager,
  consumers: readonly (readonly [stream: string, durable: string])[],
): Promise<ConsumerBacklog[]> {
  return Promise.all(
    consumers.map(async ([stream, durable]) => {
      const info = await jsm.consumers.info(stream, durable);
      return { durable, numPending: info.num_pending, numAckPending: info.num_ack_pending };
    }),
  );
}

/**
 * Waits until every consumer has nothing pending and nothing unacknowledged (a condition,
 * never a fixed sleep), polling every `intervalMs`; throws with the last backlog after
 * `timeoutMs`.
 */
export async function waitForConsumersIdle(
  jsm: JetStreamManager,
  consumers: readonly (readonly [stream: string, durable: string])[],
  options: { readonly timeoutMs?: number; readonly intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: ConsumerBacklog[] = [];
  while (Date.now() < deadline) {
    last = await consumerBacklogs(jsm, consumers);
    if (last.every((c) => c.numPending === 0 && c.numAckPending === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(
    `consumers not idle after ${options.timeoutMs ?? 60_000} ms: ${JSON.stringify(last)}`,
  );
}
