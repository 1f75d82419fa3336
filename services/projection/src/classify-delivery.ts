/**
 * What to do with one delivered event of a session, given the session's last applied
 * sequence number (DESIGN.md flow 3, R2.3, R3.3).
 *
 * - `apply`: its predecessor is the last applied event (`prev === last`).
 * - `duplicate`: already applied (`seq <= last`): ack and drop.
 * - `wait`: its predecessor is not applied yet (`prev > last`): hold or nak with delay.
 * - `conflict`: the event claims a predecessor older than what is applied although it is
 *   newer itself (`prev < last < seq`): the chain of `Aw-Prev-Seq` is broken, so the event
 *   can never be applied; it is dead-lettered.
 */
export type DeliveryDecision = 'apply' | 'duplicate' | 'wait' | 'conflict';

/**
 * Decides {@link DeliveryDecision} from the stored last sequence (`0` for an unknown
 * session), the event's sequence number and the sequence number of the session's previous
 * non-transient event (the `Aw-Prev-Seq` header). Holes left by transient events (R3.3) are
 * invisible here because `prev` skips them.
 */
export function classifyDelivery(last: number, seq: number, prev: number): DeliveryDecision {
  if (seq <= last) return 'duplicate';
  if (prev === last) return 'apply';
  if (prev > last) return 'wait';
  return 'conflict';
}
