/**
 * Exit codes of `agentwire`: 0 done, 1 a failure (runtime error, timeout, NATS unreachable),
 * 2 bad usage, 3 an unknown session or permission request.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3 } as const;
/** An exit code. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure that ends the command with a message on stderr and its exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  /** A stable code: `usage`, a runtime failure code, or `nats_unreachable`. */
  readonly code: string;
  readonly exitCode: ExitCode;

  constructor(code: string, message: string, exitCode: ExitCode, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** A usage error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError('usage', message, EXIT.usage);
}
