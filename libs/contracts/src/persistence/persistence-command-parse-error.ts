/** The error of a rejected persistence command (R4.1's rule applied to commands). */
import type { ContractIssue } from '../issues.ts';

/**
 * Stable codes of {@link PersistenceCommandParseError}:
 * - `malformed_json`: the bytes are not UTF-8 JSON;
 * - `unknown_command`: `kind` is missing or names no command;
 * - `invalid_command`: the command fails its kind's schema.
 */
export type PersistenceCommandParseErrorCode =
  | 'malformed_json'
  | 'unknown_command'
  | 'invalid_command';

export interface PersistenceCommandParseErrorOptions {
  readonly code: PersistenceCommandParseErrorCode;
  readonly kind?: string;
  readonly issues?: readonly ContractIssue[];
  readonly cause?: unknown;
}

/**
 * A command rejected at the worker's boundary, naming the kind, the failing path and the
 * reason, e.g. `invalid save_part command at part.state.status: ...`.
 */
export class PersistenceCommandParseError extends Error {
  override readonly name = 'PersistenceCommandParseError';
  /** Stable machine-readable code. */
  readonly code: PersistenceCommandParseErrorCode;
  /** The command's `kind` when it could be read. */
  readonly kind: string | undefined;
  /** Every failed check. */
  readonly issues: readonly ContractIssue[];

  constructor(message: string, options: PersistenceCommandParseErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.kind = options.kind;
    this.issues = options.issues ?? [];
  }
}
