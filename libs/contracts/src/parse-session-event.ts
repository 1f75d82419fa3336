/** Parsing events at a service boundary (R4.1): envelope, then type, then payload. */

import { EventParseError } from './event-parse-error.ts';
import { EVENT_PAYLOAD_SCHEMAS, type EventPayload } from './event-payloads.ts';
import { type EventType, isEventType, isTransientEventType } from './event-types.ts';
import { describeIssues, toContractIssues } from './issues.ts';
import { EventEnvelope, type SessionEvent } from './session-event.ts';

/** The outcome of parsing an event: a value, never a throw. */
export type ParseSessionEventResult =
  | { readonly ok: true; readonly event: SessionEvent }
  | { readonly ok: false; readonly error: EventParseError };

/** The outcome of parsing one payload. */
type ParseEventPayloadResult<T extends EventType> =
  | { readonly ok: true; readonly payload: EventPayload<T> }
  | { readonly ok: false; readonly error: EventParseError };

/** Checks `payload` against the schema of `type` (R4.1); unknown keys are stripped. */
function parseEventPayload<T extends EventType>(
  type: T,
  payload: unknown,
): ParseEventPayloadResult<T> {
  const result = EVENT_PAYLOAD_SCHEMAS[type].safeParse(payload);
  if (result.success) return { ok: true, payload: result.data as EventPayload<T> };
  const issues = toContractIssues(result.error.issues, ['payload']);
  const error = new EventParseError(`invalid payload for ${type} ${describeIssues(issues)}`, {
    code: 'invalid_payload',
    eventType: type,
    issues,
    cause: result.error,
  });
  return { ok: false, error };
}

function invalidEnvelope(
  issues: ReturnType<typeof toContractIssues>,
  eventType: string | undefined,
  cause?: unknown,
): ParseSessionEventResult {
  const what = eventType === undefined ? '' : ` of ${eventType}`;
  const error = new EventParseError(`invalid envelope${what} ${describeIssues(issues)}`, {
    code: 'invalid_envelope',
    ...(eventType === undefined ? {} : { eventType }),
    issues,
    cause,
  });
  return { ok: false, error };
}

/**
 * Parses an unknown value as a session event (R2.1, R4.1): the envelope first, then the
 * type by name (`unknown_event_type`), then the payload against its schema. A transient
 * type (R3.3) must carry a `turnId`. Never throws.
 */
export function parseSessionEvent(input: unknown): ParseSessionEventResult {
  const envelope = EventEnvelope.safeParse(input);
  if (!envelope.success) {
    const raw = (input as { type?: unknown } | null)?.type;
    return invalidEnvelope(
      toContractIssues(envelope.error.issues),
      typeof raw === 'string' ? raw : undefined,
      envelope.error,
    );
  }
  const { type } = envelope.data;
  if (!isEventType(type)) {
    const error = new EventParseError(`unknown event type ${JSON.stringify(type)}`, {
      code: 'unknown_event_type',
      eventType: type,
      issues: [{ path: 'type', message: `unknown event type ${JSON.stringify(type)}` }],
    });
    return { ok: false, error };
  }
  if (envelope.data.turnId === null && isTransientEventType(type)) {
    const message = 'a transient event type (R3.3) needs a turnId, received null';
    return invalidEnvelope([{ path: 'turnId', message }], type);
  }
  const payload = parseEventPayload(type, envelope.data.payload);
  if (!payload.ok) return payload;
  return { ok: true, event: { ...envelope.data, type, payload: payload.payload } as SessionEvent };
}

/** Like {@link parseSessionEvent}, but throws the {@link EventParseError}. */
export function parseSessionEventOrThrow(input: unknown): SessionEvent {
  const result = parseSessionEvent(input);
  if (!result.ok) throw result.error;
  return result.event;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 JSON bytes (a bus message body) and parses them as an event. */
export function decodeSessionEvent(bytes: Uint8Array): ParseSessionEventResult {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new EventParseError(`malformed JSON event: ${reason}`, {
      code: 'malformed_json',
      issues: [{ path: '(root)', message: reason }],
      cause,
    });
    return { ok: false, error };
  }
  return parseSessionEvent(value);
}

/**
 * Encodes an event as UTF-8 JSON bytes, the inverse of {@link decodeSessionEvent}.
 *
 * @internal Exported for its tests.
 */
export function encodeSessionEvent(event: SessionEvent): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(event));
}
