import { isTransientEventType, type SessionEvent } from '@agentwire/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EventRecipe, eventFromRecipe, eventRecipeArb } from '../testing/arbitrary-events.ts';
import {
  InMemorySessionEventStore,
  SEALED_TURN_RETENTION_MS,
} from './in-memory-session-event-store.ts';

type Op =
  | { readonly kind: 'append'; readonly recipe: EventRecipe; readonly session: string }
  | { readonly kind: 'sweep'; readonly advanceMs: number }
  | { readonly kind: 'delete'; readonly session: string };

const sessionArb = fc.constantFrom('s1', 's2');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('append'),
      recipe: eventRecipeArb,
      session: sessionArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('sweep'),
      advanceMs: fc.integer({ min: 0, max: 200_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete'), session: sessionArb }) },
) as fc.Arbitrary<Op>;

/**
 * What the spec allows, tracked beside the store: a turn becomes evictable once it is
 * sealed and then superseded by another turn's start (R3.4), or swept while sealed for
 * more than 120 s (R3.5). A restart of the same turn makes it live again.
 */
class RetentionModel {
  readonly sealedAt = new Map<string, number>();
  readonly evictable = new Set<string>();

  observe(event: SessionEvent, now: number): void {
    const turn = event.turnId;
    if (turn === null) return;
    const key = `${event.sessionId}/${turn}`;
    if (event.type === 'turn_started') {
      for (const [k] of this.sealedAt) {
        if (k.startsWith(`${event.sessionId}/`) && k !== key) this.evictable.add(k);
      }
      this.sealedAt.delete(key);
      this.evictable.delete(key);
    } else if (
      (event.type === 'turn_complete' || event.type === 'turn_error') &&
      !this.evictable.has(key)
    ) {
      this.sealedAt.set(key, now);
    }
  }

  sweep(now: number): void {
    for (const [k, at] of this.sealedAt)
      if (now - at > SEALED_TURN_RETENTION_MS) this.evictable.add(k);
  }

  mayEvict(event: SessionEvent): boolean {
    return (
      isTransientEventType(event.type) &&
      event.turnId !== null &&
      this.evictable.has(`${event.sessionId}/${event.turnId}`)
    );
  }

  deleteSession(session: string): void {
    for (const k of [...this.sealedAt.keys()])
      if (k.startsWith(`${session}/`)) this.sealedAt.delete(k);
    for (const k of [...this.evictable]) if (k.startsWith(`${session}/`)) this.evictable.delete(k);
  }
}

describe('turn-window retention properties (R2.3, R3.3-R3.6)', () => {
  it('never duplicates or reuses a number, never evicts a non-transient event or a live turn, and evicts superseded sealed turns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => {
        let clock = 0;
        const store = new InMemorySessionEventStore({ now: () => clock });
        const model = new RetentionModel();
        const assigned = new Map<string, number[]>();
        const expectedHeld = new Map<string, SessionEvent[]>();
        let index = 0;
        for (const op of ops) {
          if (op.kind === 'sweep') {
            clock += op.advanceMs;
            store.sweep(clock);
            model.sweep(clock);
          } else if (op.kind === 'delete') {
            await store.deleteSession(op.session);
            model.deleteSession(op.session);
            expectedHeld.set(op.session, []);
          } else {
            const event = eventFromRecipe(op.recipe, op.session, index++, clock);
            const stored = await store.append(event);
            model.observe(stored, clock);
            const numbers = assigned.get(op.session) ?? [];
            expect(stored.sequenceNumber).toBe((numbers.at(-1) ?? 0) + 1);
            numbers.push(stored.sequenceNumber);
            assigned.set(op.session, numbers);
            expectedHeld.set(op.session, [...(expectedHeld.get(op.session) ?? []), stored]);
          }
          for (const [session, candidates] of expectedHeld) {
            const held = await store.readAll(session);
            const heldNumbers = held.map((e) => e.sequenceNumber);
            // strictly increasing: no duplicate, in order
            expect(heldNumbers).toEqual([...new Set(heldNumbers)].sort((a, b) => a - b));
            const heldSet = new Set(heldNumbers);
            for (const e of candidates) {
              if (heldSet.has(e.sequenceNumber)) continue;
              // gone: only transient events of a sealed-and-superseded (or swept) turn
              expect(model.mayEvict(e), `evicted ${e.type} #${e.sequenceNumber}`).toBe(true);
            }
            // and such events are actually gone once their turn is evictable
            for (const e of held) expect(model.mayEvict(e)).toBe(false);
            expectedHeld.set(session, held as SessionEvent[]);
            expect(await store.latestSequenceNumber(session)).toBe(
              assigned.get(session)?.at(-1) ?? 0,
            );
          }
        }
        const total = [...expectedHeld.values()].reduce((n, h) => n + h.length, 0);
        expect(store.counters().heldEvents).toBe(total);
      }),
      { numRuns: 150 },
    );
  });
});
