import { HEADERS, names } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { decodeDelivery, type RawDelivery } from './decode-delivery.ts';

const n = names('aw');
const event = sampleSessionEvent('turn_started', { sessionId: 's1', sequenceNumber: 5 });

function raw(
  body: unknown,
  headers: Record<string, string>,
  subject = n.eventSubject('s1'),
): RawDelivery {
  return {
    subject,
    data: new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)),
    header: (name) => headers[name],
  };
}

const ok = { [HEADERS.sequence]: '5', [HEADERS.previousDurableSequence]: '3' };

describe('decodeDelivery', () => {
  it('accepts a valid event with its predecessor number', () => {
    const out = decodeDelivery(raw(event, ok), n);
    expect(out).toMatchObject({ ok: true, prev: 3, event: { sequenceNumber: 5, sessionId: 's1' } });
  });

  it.each([
    ['malformed JSON', raw('{nope', ok), 'malformed_json'],
    [
      'a payload failing its schema',
      raw({ ...event, payload: { turnNumber: 'x' } }, ok),
      'invalid_payload',
    ],
    ['an unknown type', raw({ ...event, type: 'nope' }, ok), 'unknown_event_type'],
    ['no Aw-Prev-Seq', raw(event, { [HEADERS.sequence]: '5' }), 'missing_prev_seq'],
    [
      'Aw-Prev-Seq not below the number',
      raw(event, { ...ok, [HEADERS.previousDurableSequence]: '5' }),
      'invalid_prev_seq',
    ],
    [
      'Aw-Seq disagreeing with the body',
      raw(event, { ...ok, [HEADERS.sequence]: '6' }),
      'envelope_mismatch',
    ],
    ['another session on the subject', raw(event, ok, n.eventSubject('s2')), 'envelope_mismatch'],
  ])('refuses %s with a stable code and keeps the session id', (_what, message, code) => {
    const out = decodeDelivery(message, n);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.code).toBe(code);
    expect(out.reason.length).toBeGreaterThan(5);
    expect(out.sessionId).toBe(message.subject.split('.')[2]);
  });
});
