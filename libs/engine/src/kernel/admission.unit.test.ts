import { describe, expect, it } from 'vitest';
import { type AdmissionFacts, decideAdmission } from './admission.ts';
import { InputQueue } from './input-queue.ts';

const idle: AdmissionFacts = {
  text: 'do it',
  bytes: 5,
  maxBytes: 100,
  activeTurnStopping: false,
  queuedCount: 0,
};
const running: AdmissionFacts = { ...idle, activeTurnId: 't1' };

describe('decideAdmission (R12.1, R14.3, R14.4)', () => {
  it('starts a turn now when nothing runs and nothing waits, whatever was requested', () => {
    expect(decideAdmission(idle)).toEqual({ ok: true, delivery: 'startNow' });
    expect(decideAdmission({ ...idle, requestedDelivery: 'guide' })).toEqual({
      ok: true,
      delivery: 'startNow',
    });
  });

  it('queues by default while a turn runs, and while inputs wait between turns', () => {
    expect(decideAdmission(running)).toEqual({ ok: true, delivery: 'queue' });
    expect(decideAdmission({ ...idle, queuedCount: 1 })).toEqual({ ok: true, delivery: 'queue' });
  });

  it('guides into the running turn on request, unless it is stopping', () => {
    expect(decideAdmission({ ...running, requestedDelivery: 'guide' })).toEqual({
      ok: true,
      delivery: 'guide',
    });
    expect(
      decideAdmission({ ...running, requestedDelivery: 'guide', activeTurnStopping: true }),
    ).toEqual({ ok: false, reason: 'turn_not_steerable' });
    expect(decideAdmission({ ...idle, queuedCount: 2, requestedDelivery: 'guide' })).toEqual({
      ok: false,
      reason: 'turn_not_steerable',
    });
  });

  it('rejects empty input, input over the limit and a mismatched expected turn', () => {
    expect(decideAdmission({ ...running, text: ' \n\t' })).toEqual({
      ok: false,
      reason: 'empty_input',
    });
    expect(decideAdmission({ ...running, bytes: 101 })).toEqual({
      ok: false,
      reason: 'input_too_large',
    });
    expect(decideAdmission({ ...running, expectedTurnId: 't0' })).toEqual({
      ok: false,
      reason: 'expected_turn_mismatch',
    });
    expect(decideAdmission({ ...idle, expectedTurnId: 't1' })).toEqual({
      ok: false,
      reason: 'expected_turn_mismatch',
    });
    expect(decideAdmission({ ...running, expectedTurnId: 't1' })).toEqual({
      ok: true,
      delivery: 'queue',
    });
  });
});

describe('InputQueue (R14.3: one place per input)', () => {
  const item = (inputId: string, delivery: 'queue' | 'guide') => ({
    inputId,
    input: inputId,
    files: [],
    delivery,
    targetTurnId: 't1',
    traceId: 'x',
  });

  it('takes queued inputs in order and guided ones together', () => {
    const q = new InputQueue();
    for (const i of [
      item('a', 'queue'),
      item('g1', 'guide'),
      item('b', 'queue'),
      item('g2', 'guide'),
    ])
      q.add(i);
    expect(q.queuedCount).toBe(2);
    expect(q.takeGuided().map((i) => i.inputId)).toEqual(['g1', 'g2']);
    expect(q.hasGuided).toBe(false);
    expect(q.takeNextQueued()?.inputId).toBe('a');
    expect(q.takeNextQueued()?.inputId).toBe('b');
    expect(q.takeNextQueued()).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it('removes and reorders only waiting inputs', () => {
    const q = new InputQueue();
    for (const i of [item('a', 'queue'), item('b', 'queue'), item('c', 'queue')]) q.add(i);
    expect(q.reorder(['c', 'a'])).toEqual({ ok: true, order: ['c', 'a', 'b'] });
    expect(q.reorder(['c', 'c'])).toEqual({ ok: false, reason: 'duplicate_input', inputId: 'c' });
    expect(q.reorder(['zz'])).toEqual({ ok: false, reason: 'unknown_input', inputId: 'zz' });
    expect(q.ids()).toEqual(['c', 'a', 'b']);
    expect(q.remove('a')?.inputId).toBe('a');
    expect(q.remove('a')).toBeUndefined();
    expect(q.ids()).toEqual(['c', 'b']);
  });
});
