/**
 * Stable codes of {@link BusError}:
 * - `provision_conflict`: an existing stream or bucket has a configuration that cannot be
 *   updated in place (storage, retention);
 * - `provision_replicas`: a stream or bucket cannot be created or moved to the wanted number
 *   of replicas (a single server asked for 3, a cluster with too few JetStream servers);
 * - `invalid_event`: an event cannot be published as given (a transient type without a
 *   turn id, a sequence number of 0, R2.2, R3.3);
 * - `publish_failed`: a publish failed for a reason other than fencing, and it may or may not
 *   have been stored (a timeout, a lost connection: retryable; an unreadable ack);
 * - `publish_refused`: the message was not stored and never will be as it is: larger than
 *   the server's `max_payload` (it never left the client), or refused by the broker's
 *   JetStream API (a stream limit such as `max_msg_size`); never retryable;
 * - `blob_missing`: a blob reference names content the object store does not hold (0162);
 * - `not_connected`: the connection closed for good;
 * - `base_expired`: a follower's base lies outside the retained window (R15.1): the stream no
 *   longer holds a non-transient event after it, so replaying would skip that event; the
 *   error's `expiredBase` gives the numbers. Resynchronise from a snapshot (the projection);
 * - `sequence_conflict`: two different events carry one number in a session, which the
 *   single-writer fences make impossible (docs/decisions/0110): a follower reports it
 *   rather than show either one; `conflict` gives the number and both ids.
 */
export type BusErrorCode =
  | 'provision_conflict'
  | 'provision_replicas'
  | 'invalid_event'
  | 'publish_failed'
  | 'publish_refused'
  | 'blob_missing'
  | 'not_connected'
  | 'base_expired'
  | 'sequence_conflict';

/** What a `sequence_conflict` {@link BusError} reports. */
export interface SequenceConflict {
  readonly sequenceNumber: number;
  /** The event already seen with that number, then the other one. */
  readonly eventIds: readonly [string, string];
}

/** What a `base_expired` {@link BusError} reports (R15.1). */
export interface ExpiredBase {
  /** The follower's last number when it found the gap: its base, or the last event it yielded. */
  readonly afterSequence: number;
  /** A non-transient event above that number which the stream no longer holds. */
  readonly missingSequence: number;
  /** The first event after the gap that the stream still holds. */
  readonly firstAvailableSequence: number;
}

/** Options of {@link BusError}. */
export interface BusErrorOptions {
  readonly code: BusErrorCode;
  /** Whether retrying the same call later can succeed (STYLE.md "Outcomes and errors"). */
  readonly retryable?: boolean;
  readonly cause?: unknown;
  /** The numbers of a `base_expired` error. */
  readonly expiredBase?: ExpiredBase;
  /** The number and ids of a `sequence_conflict` error. */
  readonly conflict?: SequenceConflict;
}

/** The one error class of `@agentwire/bus`; expected outcomes are values, not this. */
export class BusError extends Error {
  override readonly name = 'BusError';
  readonly code: BusErrorCode;
  readonly retryable: boolean;
  /** Set on `base_expired` only. */
  readonly expiredBase: ExpiredBase | undefined;
  /** Set on `sequence_conflict` only. */
  readonly conflict: SequenceConflict | undefined;

  constructor(message: string, options: BusErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? false;
    this.expiredBase = options.expiredBase;
    this.conflict = options.conflict;
  }
}

/** True for the `base_expired` error of a follower (R15.1), with its numbers. */
export function isBaseExpired(
  error: unknown,
): error is BusError & { readonly code: 'base_expired'; readonly expiredBase: ExpiredBase } {
  return (
    error instanceof BusError && error.code === 'base_expired' && error.expiredBase !== undefined
  );
}
