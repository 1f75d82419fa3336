import { parseSessionEvent, SessionProjection } from '@agentwire/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EventRecipe, eventRecipeArb, numbered } from '../testing/arbitrary-events.ts';
import { initialProjection, rebuildProjection, reduce } from './reduce.ts';

const recipes = fc.array(eventRecipeArb, { minLength: 1, maxLength: 60 });

describe('reducer properties (R10)', () => {
  it('generated events are valid events', () => {
    fc.assert(
      fc.property(recipes, (r) => {
        for (const e of numbered(r)) expect(parseSessionEvent(e).ok).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it('incremental reduction, stored and reloaded as JSON at any points, equals rebuildProjection', () => {
    fc.assert(
      fc.property(recipes, fc.array(fc.nat(), { maxLength: 5 }), (r, cuts) => {
        const events = numbered(r);
        const cutAt = new Set(cuts.map((c) => c % events.length));
        let p = initialProjection('s1', events[0]?.timestamp ?? 0);
        events.forEach((e, i) => {
          p = reduce(p, e);
          if (cutAt.has(i)) p = SessionProjection.parse(JSON.parse(JSON.stringify(p)));
        });
        expect(p).toEqual(rebuildProjection('s1', events));
      }),
    );
  });

  it('applying any event twice equals applying it once, and never mutates its input', () => {
    fc.assert(
      fc.property(recipes, (r) => {
        let p = initialProjection('s1', 0);
        for (const e of numbered(r)) {
          const before = structuredClone(p);
          const once = reduce(p, e);
          expect(p).toEqual(before);
          expect(reduce(once, e)).toBe(once);
          p = once;
        }
      }),
    );
  });

  it('redelivered (duplicated, stale) events anywhere change nothing', () => {
    fc.assert(
      fc.property(recipes, fc.array(fc.nat(), { maxLength: 20 }), (r, picks) => {
        const events = numbered(r);
        const delivered = events.flatMap((e, i) => {
          const pick = picks[i % Math.max(1, picks.length)];
          const again = pick === undefined ? undefined : events[pick % (i + 1)];
          return again === undefined ? [e] : [e, again];
        });
        const p = delivered.reduce(reduce, initialProjection('s1', events[0]?.timestamp ?? 0));
        expect(p).toEqual(rebuildProjection('s1', events));
      }),
    );
  });

  it('no permission request or tool call outlives the turn_complete or turn_error after it', () => {
    const tools = fc.constantFrom<EventRecipe['type']>(
      'tool_call_scheduled',
      'tool_call_started',
      'permission_requested',
    );
    const withTools = fc.array(
      fc.oneof(
        eventRecipeArb,
        eventRecipeArb.chain((r) => tools.map((type) => ({ ...r, type }))),
      ),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(withTools, (r) => {
        let p = initialProjection('s1', 0);
        for (const e of numbered(r)) {
          p = reduce(p, e);
          if (e.type !== 'turn_complete' && e.type !== 'turn_error') continue;
          expect(p.pendingPermissions).toEqual([]);
          expect(p.activeToolCalls).toEqual([]);
        }
      }),
    );
  });
});
