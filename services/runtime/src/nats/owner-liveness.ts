import { type NatsConnection, RequestError, TimeoutError } from '@nats-io/transport-node';

/**
 * What a liveness ping says of a lease's owner (docs/decisions/0110):
 * - `alive`: it answered;
 * - `unresponsive`: its connection holds the ping subscription but it did not answer in
 *   time (paused, starved, or slow): a live owner, never taken over;
 * - `gone`: no connection holds the subscription (the server answered "no responders"):
 *   the process died, or is reconnecting.
 */
export type OwnerLiveness = 'alive' | 'unresponsive' | 'gone';

/** How long a ping waits for an answer; a live owner late past it is still live. */
const PING_TIMEOUT_MS = 1_000;

/** Pings an owner's liveness subject once. */
export async function pingOwner(nc: NatsConnection, subject: string): Promise<OwnerLiveness> {
  try {
    await nc.request(subject, '', { timeout: PING_TIMEOUT_MS });
    return 'alive';
  } catch (err) {
    if (err instanceof RequestError && err.isNoResponders()) return 'gone';
    if (err instanceof TimeoutError || err instanceof RequestError) return 'unresponsive';
    // The ping could not be sent (our own connection is down): nothing is known.
    return 'unresponsive';
  }
}
