import type { Decoded as BusDecoded } from '@agentwire/bus';
/**
 * What decoding one bus message gave: an item to apply, a message to acknowledge untouched
 * (`skip`), or invalid input to dead-letter with a stable code and a reason naming what
 * was wrong (DESIGN.md invariant "bad input never poisons a consumer").
 */
export type Decoded<T> =
  | Exclude<BusDecoded<T>, { readonly kind: 'invalid' }>
  | { readonly kind: 'invalid'; readonly code: InvalidCode; readonly reason: string };

/** Stable codes carried in the `Aw-Dlq-Code` header of a dead-lettered message. */
export type InvalidCode =
  | 'oversized'
  | 'malformed_json'
  | 'invalid_envelope'
  | 'invalid_payload'
  | 'unknown_event_type'
  | 'unknown_command'
  | 'invalid_command'
  | 'subject_mismatch'
  | 'header_mismatch'
  | 'invalid_header'
  | 'sequence_conflict'
  | 'apply_failed';

/** Shorthand for an invalid outcome. */
export function invalid(code: InvalidCode, reason: string): Decoded<never> {
  return { kind: 'invalid', code, reason };
}
