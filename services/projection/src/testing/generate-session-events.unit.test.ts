import { parseSessionEvent } from '@agentwire/contracts';
import { rebuildProjection } from '@agentwire/domain';
import { describe, expect, it } from 'vitest';
import { reduceSessionProjection } from '../domain-reduce.ts';
import { generateSessionEvents } from './generate-session-events.ts';

describe('generateSessionEvents', () => {
  it('yields schema-valid events chained by Aw-Prev-Seq with transient holes', () => {
    const events = generateSessionEvents('s1', 200, 7);
    let prev = 0;
    for (const g of events) {
      expect(parseSessionEvent(g.event).ok).toBe(true);
      expect(g.prev).toBe(prev);
      prev = g.event.sequenceNumber;
    }
    expect(prev).toBeGreaterThan(200);
  });

  it('reduced one by one through the applier shape equals rebuildProjection', () => {
    const events = generateSessionEvents('s1', 300, 3).map((g) => g.event);
    let p: ReturnType<typeof reduceSessionProjection> | undefined;
    for (const e of events) p = reduceSessionProjection(p, e);
    expect(p).toEqual(rebuildProjection('s1', events));
    expect(p?.turnCount).toBe(25);
  });
});
