/**
 * Stable codes of {@link BusError}:
 * - `provision_conflict`: an existing stream or bucket has a configuration that cannot be
 *   updated in place (storage, retention);
 * - `invalid_event`: an event cannot be published as given (a transient type without a
 *   turn id, a sequence number of 0, R2.2, R3.3);
 * - `publish_failed`: the broker rejected a publish for a reason other than fencing;
 * - `not_connected`: the connection closed for good.
 */
export type BusErrorCode =
  | 'provision_conflict'
  | 'invalid_event'
  | 'publish_failed'
  | 'not_connected';

/** Options of {@link BusError}. */
export interface BusErrorOptions {
  readonly code: BusErrorCode;
  /** Whether retrying the same call later can succeed (STYLE.md "Outcomes and errors"). */
  readonly retryable?: boolean;
  readonly cause?: unknown;
}

/** The one error class of `@agentwire/bus`; expected outcomes are values, not this. */
export class BusError extends Error {
  override readonly name = 'BusError';
  readonly code: BusErrorCode;
  readonly retryable: boolean;

  constructor(message: string, options: BusErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }
}
