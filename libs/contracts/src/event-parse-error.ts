/** The error of every rejected event at a service boundary (R4.1). */
import type { ContractIssue } from './issues.ts';

/**
 * Stable codes of {@link EventParseError}:
 * - `malformed_json`: the bytes are not UTF-8 JSON;
 * - `invalid_envelope`: one of the eight envelope fields (R2.1) is wrong;
 * - `unknown_event_type`: `type` is not one of the 79 types of R4;
 * - `invalid_payload`: the payload fails its type's schema.
 */
export type EventParseErrorCode =
  | 'malformed_json'
  | 'invalid_envelope'
  | 'unknown_event_type'
  | 'invalid_payload';

export interface EventParseErrorOptions {
  readonly code: EventParseErrorCode;
  readonly eventType?: string;
  readonly issues?: readonly ContractIssue[];
  readonly cause?: unknown;
}

/**
 * An event rejected at a boundary (R4.1). The message names the type, the failing path and
 * the reason, e.g. `invalid payload for turn_started at payload.turnNumber: expected
 * number, received string`.
 */
export class EventParseError extends Error {
  override readonly name = 'EventParseError';
  /** Stable machine-readable code. */
  readonly code: EventParseErrorCode;
  /** The event's `type` when it could be read. */
  readonly eventType: string | undefined;
  /** Every failed check. */
  readonly issues: readonly ContractIssue[];

  constructor(message: string, options: EventParseErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.eventType = options.eventType;
    this.issues = options.issues ?? [];
  }
}
