import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '../testing/fake-ports.ts';
import { SEALED_TURN_RETENTION_MS, TransientEviction } from './transient-eviction.ts';

/** What a session does to its eviction schedule, as the kernel calls it. */
type Op =
  | { readonly kind: 'seal' }
  | { readonly kind: 'start' }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'sweep' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'seal' } as const) },
  { weight: 3, arbitrary: fc.constant({ kind: 'start' } as const) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 200_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'sweep' } as const) },
);

describe('transient retention (R3.3-R3.5): the one rule, as the engine runs it', () => {
  it('evicts a sealed turn once: when the next turn starts, or when swept after 120 s sealed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(opArb, { maxLength: 60 }), async (loaded, ops) => {
        const evicted: string[] = [];
        let now = 1_000;
        let turn = 0;
        // A session loaded with a sealed turn starts with it as the one to evict.
        const eviction = new TransientEviction(
          {
            sessionId: 's1',
            logger: new RecordingLogger(),
            evict: async (turnId) => void evicted.push(turnId),
          },
          loaded ? 't0' : undefined,
          now,
        );
        // The model of the rule: the last sealed turn still retained, and since when.
        let pending: { turnId: string; sealedAt: number } | undefined = loaded
          ? { turnId: 't0', sealedAt: now }
          : undefined;
        for (const op of ops) {
          const before = evicted.length;
          if (op.kind === 'seal') {
            turn += 1;
            eviction.sealed(`t${turn}`, now);
            pending = { turnId: `t${turn}`, sealedAt: now };
          } else if (op.kind === 'start') {
            const did = await eviction.evictNow();
            expect(did).toBe(pending !== undefined);
            if (pending !== undefined) expect(evicted.at(-1)).toBe(pending.turnId);
            pending = undefined;
          } else if (op.kind === 'advance') {
            now += op.ms;
          } else {
            const due = pending !== undefined && now - pending.sealedAt > SEALED_TURN_RETENTION_MS;
            expect(await eviction.sweep(now)).toBe(due);
            if (due) {
              expect(evicted.at(-1)).toBe(pending?.turnId);
              pending = undefined;
            }
          }
          expect(evicted.length - before).toBeLessThanOrEqual(1);
        }
        // No turn is evicted twice.
        expect(new Set(evicted).size).toBe(evicted.length);
      }),
      { numRuns: 300 },
    );
  });

  it("a failing purge is logged, not retried (the stream's age limit is its backstop)", async () => {
    const logger = new RecordingLogger();
    const eviction = new TransientEviction(
      {
        sessionId: 's1',
        logger,
        evict: async () => {
          throw new Error('stream unavailable');
        },
      },
      't1',
      0,
    );
    expect(await eviction.evictNow()).toBe(false);
    expect(logger.lines.map((l) => l.msg)).toContain('transient eviction failed');
    expect(await eviction.evictNow()).toBe(false);
  });
});
