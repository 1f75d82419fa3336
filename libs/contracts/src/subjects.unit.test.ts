import { describe, expect, it } from 'vitest';
import { names } from './subjects.ts';

const n = names('aw');

describe('subject parsers (issue 10: one function per subject kind, next to its builder)', () => {
  it('parse what the builders build', () => {
    expect(n.parseEventSubject(n.eventSubject('s-1'))).toEqual({ sessionId: 's-1', turnId: null });
    expect(n.parseEventSubject(n.transientSubject('s-1', 't_2'))).toEqual({
      sessionId: 's-1',
      turnId: 't_2',
    });
    expect(n.parseCommandSubject(n.commandSubject('s-1'))).toBe('s-1');
    expect(n.parseRuntimeOpSubject(n.runtimeOp('s-1', 'prompt'))).toEqual({
      sessionId: 's-1',
      op: 'prompt',
    });
    expect(n.parseProjectionForward('p2', n.projectionForward('p2', 's-1'))).toBe('s-1');
    expect(n.parseProjectionApplied(n.projectionApplied('s-1'))).toBe('s-1');
    expect(n.parseQuerySubject(n.query('history'))).toBe('history');
    expect(n.parseQuerySubject('aw.query.*')).toBeUndefined();
  });

  it('refuse another prefix, another kind, extra or missing tokens, and wildcards', () => {
    for (const subject of [
      'other.session.s-1.ev',
      'aw.persist.s-1',
      'aw.session.s-1',
      'aw.session.s-1.ev.extra',
      'aw.session.s-1.tx',
      'aw.session.*.ev',
      'aw.session.>.ev',
      'aw.session..ev',
    ]) {
      expect(n.parseEventSubject(subject), subject).toBeUndefined();
    }
    expect(n.parseCommandSubject('aw.persist.*')).toBeUndefined();
    expect(n.parseCommandSubject('aw.persist.s-1.x')).toBeUndefined();
    expect(n.parseRuntimeOpSubject(n.runtimeOpen)).toBeUndefined();
    expect(n.parseRuntimeOpSubject(n.runtimeInstancePing('i-1'))).toBeUndefined();
    expect(n.parseProjectionForward('p1', n.projectionForward('p2', 's-1'))).toBeUndefined();
    expect(n.parseProjectionApplied(n.projectionMembers)).toBeUndefined();
  });

  it('refuse wildcards in the ids they build from', () => {
    expect(() => n.eventSubject('*')).toThrow(TypeError);
    expect(() => n.runtimeInstancePing('a.b')).toThrow(TypeError);
    expect(() => n.projectionForward('>', 's-1')).toThrow(TypeError);
    expect(n.transientFilter('s-1')).toBe('aw.session.s-1.tx.*');
  });
});
