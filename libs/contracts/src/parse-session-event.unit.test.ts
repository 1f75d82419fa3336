import { describe, expect, it } from 'vitest';
import { createEvent } from './create-event.ts';
import { EVENT_PAYLOAD_SCHEMAS } from './event-payloads.ts';
import { EVENT_TYPES, TRANSIENT_EVENT_TYPES } from './event-types.ts';
import {
  decodeSessionEvent,
  encodeSessionEvent,
  parseSessionEvent,
  parseSessionEventOrThrow,
} from './parse-session-event.ts';
import { SAMPLE_TRACE_ID, sampleEventPayloads, sampleSessionEvent } from './testing/samples.ts';

function failureOf(input: unknown) {
  const result = parseSessionEvent(input);
  if (result.ok) throw new Error('expected a parse failure');
  return result.error;
}

describe('the catalogue (R4, R4.1)', () => {
  it('has a schema for each of the 79 types and nothing else', () => {
    expect(EVENT_TYPES).toHaveLength(79);
    expect(Object.keys(EVENT_PAYLOAD_SCHEMAS).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)('parses a valid %s event', (type) => {
    const event = sampleSessionEvent(type);
    const result = parseSessionEvent(event);
    expect(result).toEqual({ ok: true, event });
  });
});

describe('parseSessionEvent rejects bad input with type, path and reason (R4.1)', () => {
  it('given a wrong payload field, names the type, the path and the reason', () => {
    const event = sampleSessionEvent('turn_started');
    const error = failureOf({ ...event, payload: { ...event.payload, turnNumber: '1' } });
    expect(error).toMatchObject({
      name: 'EventParseError',
      code: 'invalid_payload',
      eventType: 'turn_started',
      issues: [{ path: 'payload.turnNumber', message: 'expected number, received string' }],
    });
    expect(error.message).toBe(
      'invalid payload for turn_started at payload.turnNumber: expected number, received string',
    );
  });

  it('given a missing required field, reports it', () => {
    const event = sampleSessionEvent('tool_call_result');
    const { result: _dropped, ...payload } = event.payload;
    const error = failureOf({ ...event, payload });
    expect(error.code).toBe('invalid_payload');
    expect(error.issues).toEqual([
      { path: 'payload.result', message: 'expected object, received undefined' },
    ]);
  });

  it('given a nested array element error, reports the indexed path', () => {
    const event = sampleSessionEvent('model_request');
    const messages = [{ role: 'robot', content: 'x' }];
    const error = failureOf({ ...event, payload: { ...event.payload, messages } });
    expect(error.issues[0]?.path).toBe('payload.messages[0].role');
    expect(error.message).toContain(
      'invalid payload for model_request at payload.messages[0].role',
    );
  });

  it('given an unknown type, rejects it by name', () => {
    const error = failureOf({ ...sampleSessionEvent('resume'), type: 'turn_exploded' });
    expect(error.code).toBe('unknown_event_type');
    expect(error.eventType).toBe('turn_exploded');
    expect(error.message).toBe('unknown event type "turn_exploded"');
  });

  it('given a bad envelope, reports every wrong field', () => {
    const error = failureOf({
      ...sampleSessionEvent('resume'),
      sessionId: 'a.b',
      traceId: 'XYZ',
      sequenceNumber: -1,
    });
    expect(error.code).toBe('invalid_envelope');
    expect(error.eventType).toBe('resume');
    expect(error.issues.map((i) => i.path)).toEqual(['sessionId', 'traceId', 'sequenceNumber']);
  });

  it('given a non-object, reports the root', () => {
    const error = failureOf(42);
    expect(error.code).toBe('invalid_envelope');
    expect(error.issues).toEqual([{ path: '(root)', message: 'expected object, received number' }]);
  });

  it.each(TRANSIENT_EVENT_TYPES)('requires a turnId on transient type %s (R3.3)', (type) => {
    const error = failureOf(sampleSessionEvent(type, { turnId: null }));
    expect(error.code).toBe('invalid_envelope');
    expect(error.issues[0]?.path).toBe('turnId');
  });

  it('accepts a null turnId on a session-level event', () => {
    const event = sampleSessionEvent('session_title_updated', { turnId: null });
    expect(parseSessionEvent(event).ok).toBe(true);
  });

  it('strips unknown payload keys (decision 0010)', () => {
    const event = sampleSessionEvent('resume');
    const result = parseSessionEventOrThrow({ ...event, payload: { reason: 'x', extra: 1 } });
    expect(result.payload).toEqual({ reason: 'x' });
  });

  it('parseSessionEventOrThrow throws the EventParseError', () => {
    expect(() => parseSessionEventOrThrow({})).toThrow(
      expect.objectContaining({ code: 'invalid_envelope' }),
    );
  });
});

describe('decodeSessionEvent', () => {
  it('round-trips an encoded event', () => {
    const event = sampleSessionEvent('tool_call_scheduled', { sequenceNumber: 7 });
    expect(decodeSessionEvent(encodeSessionEvent(event))).toEqual({ ok: true, event });
  });

  it('reports malformed JSON with its own code', () => {
    const result = decodeSessionEvent(new TextEncoder().encode('{"id": '));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('malformed_json');
  });

  it('reports invalid UTF-8 as malformed JSON', () => {
    const result = decodeSessionEvent(new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('malformed_json');
  });
});

describe('createEvent (R2.2)', () => {
  const base = {
    id: 'evt-1',
    sessionId: 'session-1',
    turnId: 'turn-1',
    timestamp: 1_700_000_000_000,
    traceId: SAMPLE_TRACE_ID,
  };

  it('creates every event with sequence number 0', () => {
    const event = createEvent({
      ...base,
      type: 'turn_started',
      payload: sampleEventPayloads.turn_started,
    });
    expect(event.sequenceNumber).toBe(0);
    expect(event.payload.turnNumber).toBe(1);
  });

  it('throws on a payload that does not match its type', () => {
    const payload = { ...sampleEventPayloads.turn_complete, resultType: 'exploded' } as never;
    expect(() => createEvent({ ...base, type: 'turn_complete', payload })).toThrow(
      /invalid payload for turn_complete at payload.resultType/,
    );
  });
});
