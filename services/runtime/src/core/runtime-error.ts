/** Stable codes of the runtime's typed errors (answered on `aw.rt.*` as `{ ok: false, error }`). */
export type RuntimeErrorCode =
  | 'invalid_request'
  | 'unknown_op'
  | 'unknown_session'
  | 'session_exists'
  | 'lease_conflict'
  | 'turn_in_progress'
  | 'no_active_turn'
  | 'unknown_permission_request'
  | 'prompt_too_large'
  | 'empty_input'
  | 'expected_turn_mismatch'
  | 'turn_not_steerable'
  | 'input_not_pending'
  | 'duplicate_input'
  | 'session_closed'
  | 'session_broken'
  | 'internal';

/** A failure the caller of an operation should see, with a stable code (STYLE.md). */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  readonly code: RuntimeErrorCode;
  /** Extra facts for the caller, e.g. the current owner on `lease_conflict` (R13.1). */
  readonly detail: Readonly<Record<string, unknown>>;

  constructor(
    code: RuntimeErrorCode,
    message: string,
    detail: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = code;
    this.detail = detail;
  }
}
