import type { QueryClient, RuntimeClient, RuntimeFailure } from '@agentwire/bus';
import { CliError, EXIT, usageError } from './cli-error.ts';
import type { Progress } from './progress.ts';
import type { Style } from './style.ts';

/** What a command needs: the clients, two output lines and a stop signal (Ctrl-C). */
export interface CliContext {
  readonly client: RuntimeClient;
  /** The read side (`aw.query.*`): session lists and history. */
  readonly query: QueryClient;
  /** Writes one line to stdout. */
  readonly out: (line: string) => void;
  /** Writes one line to stderr. */
  readonly err: (line: string) => void;
  /** Aborted on SIGINT/SIGTERM: long-running commands end cleanly. */
  readonly signal: AbortSignal;
  /** `--json`: print JSON (one document, or one event per line) instead of text. */
  readonly json: boolean;
  /** Colours of text output (plain under `NO_COLOR` or off a terminal). */
  readonly style: Style;
  /** A progress line on waits, shown only when stdout is a terminal. */
  readonly progress: Progress;
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

const NOT_FOUND = new Set([
  'unknown_session',
  'not_found',
  'unknown_permission_request',
  'input_not_pending',
]);
const USAGE = new Set(['invalid_request', 'empty_input', 'prompt_too_large', 'bad_cursor']);

/** A runtime failure as a {@link CliError}: exit 3 for unknown things, 2 for bad input, else 1. */
export function failureError(what: string, failure: RuntimeFailure): CliError {
  const { code, message } = failure.error;
  const exit = NOT_FOUND.has(code) ? EXIT.notFound : USAGE.has(code) ? EXIT.usage : EXIT.failure;
  return new CliError(code, `${what}: ${message} (${code})`, exit);
}

/** Prints a command's answer: `value` as one JSON document with `--json`, else `lines`. */
export function print(ctx: CliContext, value: unknown, lines: readonly string[]): void {
  if (ctx.json) ctx.out(JSON.stringify(value));
  else for (const line of lines) ctx.out(line);
}
