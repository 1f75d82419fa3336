import { describe, expect, it } from 'vitest';
import { event } from '../state/test-events.ts';
import { decodeFrame } from './decode-frame.ts';

const started = event(5, 'turn_started', { turnNumber: 0, input: 'hi' });
const delta = event(6, 'model_streaming', { delta: 'Hel', done: false, kind: 'text_delta' });

describe('decodeFrame', () => {
  it('reads one envelope per frame (0092) and a batch with its range (R15.2)', () => {
    expect(decodeFrame({ id: '5', data: JSON.stringify(started) })).toEqual({
      kind: 'events',
      events: [started],
    });
    const batch = { fromSeq: 5, toSeq: 6, events: [started, delta] };
    expect(decodeFrame({ data: JSON.stringify(batch) })).toEqual({
      kind: 'events',
      events: [started, delta],
    });
  });

  it('reads snapshots and errors', () => {
    const projection = { id: 'ses_1', createdAt: 1, updatedAt: 2, lastSequenceNumber: 9 };
    const snapshot = decodeFrame({
      event: 'snapshot',
      data: JSON.stringify({ projection, asOfSeq: 9 }),
    });
    expect(snapshot).toMatchObject({
      kind: 'snapshot',
      asOfSeq: 9,
      projection: { id: 'ses_1', status: 'idle' },
    });
    expect(
      decodeFrame({ event: 'error', data: '{"code":"base_expired","message":"gone"}' }),
    ).toEqual({ kind: 'error', code: 'base_expired', message: 'gone' });
  });

  it('refuses what is not an event: bad JSON, a bad payload, an unknown frame type', () => {
    expect(decodeFrame({ data: '{"type":' })).toMatchObject({ kind: 'invalid' });
    const bad = { ...started, payload: { turnNumber: 'zero' } };
    expect(decodeFrame({ data: JSON.stringify(bad) })).toMatchObject({ kind: 'invalid' });
    expect(decodeFrame({ event: 'mystery', data: '{}' })).toMatchObject({ kind: 'invalid' });
    expect(decodeFrame({ event: 'snapshot', data: '{"asOfSeq":1}' })).toMatchObject({
      kind: 'invalid',
    });
  });
});
