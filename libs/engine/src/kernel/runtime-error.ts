import type { RuntimeErrorCode } from '@agentwire/contracts';

/**
 * Stable codes of the runtime's typed errors (answered on `aw.rt.*` as `{ ok: false, error }`):
 * the contracts' `RuntimeErrorCode`, the one list frontends switch on.
 */

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
