import type { RuntimeClient, RuntimeFailure } from '@agentwire/bus';
import { CliError, EXIT, usageError } from './cli-error.ts';

/** What a command needs: the client, two output lines and a stop signal (Ctrl-C). */
export interface CliContext {
  readonly client: RuntimeClient;
  /** Writes one line to stdout. */
  readonly out: (line: string) => void;
  /** Writes one line to stderr. */
  readonly err: (line: string) => void;
  /** Aborted on SIGINT/SIGTERM: long-running commands end cleanly. */
  readonly signal: AbortSignal;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** Throws a usage error unless `sessionId` is a valid session id (a subject token). */
export function checkSessionId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId)) {
    throw usageError(
      `invalid session id ${JSON.stringify(sessionId)}: letters, digits, "-" or "_" only`,
    );
  }
}

const NOT_FOUND = new Set(['unknown_session', 'not_found', 'unknown_permission_request']);
const USAGE = new Set(['invalid_request', 'empty_input', 'prompt_too_large']);

/** A runtime failure as a {@link CliError}: exit 3 for unknown things, 2 for bad input, else 1. */
export function failureError(what: string, failure: RuntimeFailure): CliError {
  const { code, message } = failure.error;
  const exit = NOT_FOUND.has(code) ? EXIT.notFound : USAGE.has(code) ? EXIT.usage : EXIT.failure;
  return new CliError(code, `${what}: ${message} (${code})`, exit);
}
