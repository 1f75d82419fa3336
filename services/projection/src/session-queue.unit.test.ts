import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyDelivery } from './classify-delivery.ts';
import { type Held, SessionQueue } from './session-queue.ts';

/** A session's non-transient numbers with transient holes: strictly increasing from >= 1. */
const chainArb = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 60 })
  .map((steps) => {
    let seq = 0;
    return steps.map((step) => {
      const prev = seq;
      seq += step;
      return { seq, prev };
    });
  });

const held = (seq: number, prev: number, heldSince = 0): Held<string> => ({
  seq,
  prev,
  heldSince,
  item: `${seq}`,
});

describe('classifyDelivery', () => {
  it('applies the successor, drops what is applied, waits on a gap, rejects a broken chain', () => {
    expect(classifyDelivery(0, 1, 0)).toBe('apply');
    expect(classifyDelivery(5, 8, 5)).toBe('apply'); // 6 and 7 were transient
    expect(classifyDelivery(5, 5, 3)).toBe('duplicate');
    expect(classifyDelivery(5, 2, 1)).toBe('duplicate');
    expect(classifyDelivery(5, 9, 7)).toBe('wait');
    expect(classifyDelivery(5, 9, 3)).toBe('conflict');
  });
});

describe('SessionQueue', () => {
  it('given a gap, when the predecessor arrives, then the whole chain drains in order', () => {
    const q = new SessionQueue<string>();
    q.add(held(4, 2));
    q.add(held(7, 4));
    expect(q.drain(0).apply).toEqual([]);
    expect(q.awaited()).toBe(2);
    q.add(held(2, 1));
    q.add(held(1, 0));
    const out = q.drain(0);
    expect(out.apply.map((h) => h.seq)).toEqual([1, 2, 4, 7]);
    expect(out.last).toBe(7);
    expect(q.size).toBe(0);
  });

  it('given two different events with one number, applies the first and reports the other, now or later', () => {
    const q = new SessionQueue<string>((item) => item);
    const event = (seq: number, prev: number, id: string): Held<string> => ({
      seq,
      prev,
      heldSince: 0,
      item: id,
    });
    q.add(event(1, 0, 'a1'));
    q.add(event(1, 0, 'b1'));
    q.add(event(2, 1, 'a2'));
    const first = q.drain(0);
    expect(first.apply.map((h) => h.item)).toEqual(['a1', 'a2']);
    expect(first.numberConflicts.map((h) => h.item)).toEqual(['b1']);
    // A late second writer's 2 (with the prev its own chain gave it), and a redelivered a2.
    q.add(event(2, 1, 'b2'));
    q.add(event(2, 1, 'a2'));
    const later = q.drain(2);
    expect(later.numberConflicts.map((h) => h.item)).toEqual(['b2']);
    expect(later.duplicates.map((h) => h.item)).toEqual(['a2']);
  });

  it('given copies of one event, applies one and reports the others as duplicates', () => {
    const q = new SessionQueue<string>();
    q.add(held(1, 0));
    q.add(held(1, 0));
    q.add(held(2, 1));
    const out = q.drain(0);
    expect(out.apply.map((h) => h.seq)).toEqual([1, 2]);
    expect(out.duplicates.map((h) => h.seq)).toEqual([1]);
  });

  it('given another instance applied further, held events at or below it are duplicates', () => {
    const q = new SessionQueue<string>();
    q.add(held(3, 2));
    q.add(held(5, 3));
    q.add(held(9, 7));
    const out = q.drain(5);
    expect(out.apply).toEqual([]);
    expect(out.duplicates.map((h) => h.seq).sort()).toEqual([3, 5]);
    expect(q.size).toBe(1);
  });

  it('reports a forked or contradicting chain as conflicts', () => {
    const q = new SessionQueue<string>();
    q.add(held(2, 1));
    q.add(held(3, 1));
    q.add(held(9, 0));
    const out = q.drain(1);
    expect(out.apply.map((h) => h.seq)).toEqual([2]);
    expect(out.conflicts.map((h) => h.seq).sort()).toEqual([3, 9]);
  });

  it('times out old deliveries and reports the oldest wait', () => {
    const q = new SessionQueue<string>();
    q.add(held(5, 4, 100));
    q.add(held(9, 5, 300));
    expect(q.oldestHeldSince()).toBe(100);
    expect(q.takeOlderThan(200).map((h) => h.seq)).toEqual([5]);
    expect(q.size).toBe(1);
    expect(q.takeAll().map((h) => h.seq)).toEqual([9]);
    expect(q.oldestHeldSince()).toBeUndefined();
  });

  it('property: shuffled and duplicated deliveries, drained at any points, apply the chain once in order', () => {
    fc.assert(
      fc.property(
        chainArb,
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 100, maxLength: 100 }),
        fc.infiniteStream(fc.nat()),
        (chain, dupIdx, drainAfter, random) => {
          const deliveries = [...chain, ...dupIdx.map((i) => chain[i % chain.length] ?? chain[0])]
            .filter((d) => d !== undefined)
            .map((d, i) => ({ ...d, key: random.next().value + i / 1000 }))
            .sort((a, b) => a.key - b.key);
          const q = new SessionQueue<string>();
          const applied: number[] = [];
          let dropped = 0;
          let last = 0;
          deliveries.forEach((d, i) => {
            q.add(held(d.seq, d.prev));
            if (drainAfter[i % drainAfter.length] === true) {
              const out = q.drain(last);
              applied.push(...out.apply.map((h) => h.seq));
              dropped += out.duplicates.length;
              expect(out.conflicts).toEqual([]);
              last = out.last;
            }
          });
          const out = q.drain(last);
          applied.push(...out.apply.map((h) => h.seq));
          dropped += out.duplicates.length;
          expect(applied).toEqual(chain.map((c) => c.seq));
          expect(dropped).toBe(deliveries.length - chain.length);
          expect(q.size).toBe(0);
        },
      ),
    );
  });
});
