import { describe, expect, it } from 'vitest';
import { isEvictable, planResidency, type ResidentSessionFacts } from './residency-decision.ts';
import { DEFAULT_RESIDENCY_OPTIONS, resolveResidencyOptions } from './residency-options.ts';

const MIN = 60_000;
const idleFacts = (sessionId: string, lastUsedAt: number): ResidentSessionFacts => ({
  sessionId,
  lastUsedAt,
  persisted: true,
  inFlightWork: 0,
  pendingInteraction: false,
  queuedCommands: 0,
  subscribers: 0,
  operationInProgress: false,
  deactivating: false,
});
const options = DEFAULT_RESIDENCY_OPTIONS;

describe('residency options (R16.6)', () => {
  it('given nothing, when resolved, then the defaults are 8, 16 and 10 minutes (R11.1)', () => {
    expect(resolveResidencyOptions()).toEqual({
      ok: true,
      options: { target: 8, highWater: 16, idleTimeoutMs: 600_000 },
    });
  });

  it.each([
    [{ target: -1 }, 'target'],
    [{ target: 2.5 }, 'target'],
    [{ target: 20 }, 'highWater'],
    [{ highWater: 4, target: 5 }, 'highWater'],
    [{ idleTimeoutMs: -1 }, 'idleTimeoutMs'],
    [{ idleTimeoutMs: Number.NaN }, 'idleTimeoutMs'],
  ])('given %o, when resolved, then %s is rejected', (input, field) => {
    expect(resolveResidencyOptions(input)).toMatchObject({ ok: false, field });
  });

  it('given high water equal to target and zero idle, when resolved, then it is accepted', () => {
    expect(resolveResidencyOptions({ target: 0, highWater: 0, idleTimeoutMs: 0 }).ok).toBe(true);
  });
});

describe('isEvictable (R11.2)', () => {
  it.each([
    [{ persisted: false }],
    [{ inFlightWork: 1 }],
    [{ pendingInteraction: true }],
    [{ queuedCommands: 1 }],
    [{ subscribers: 1 }],
    [{ operationInProgress: true }],
    [{ deactivating: true }],
  ])('given %o, when checked, then the session may not go', (change) => {
    expect(isEvictable({ ...idleFacts('s', 0), ...change })).toBe(false);
  });
});

describe('planResidency (R11.1, R16.6)', () => {
  it('given a session first seen eligible, when planned, then it is stamped and kept', () => {
    const plan = planResidency({
      sessions: [idleFacts('s1', 0)],
      eligibleSince: new Map(),
      now: 5 * MIN,
      options,
    });
    expect(plan.evictions).toEqual([]);
    expect(plan.eligibleSince.get('s1')).toBe(5 * MIN);
  });

  it('given sessions eligible for 10 minutes, when planned, then they go oldest first as idle_timeout', () => {
    const plan = planResidency({
      sessions: [idleFacts('young', 0), idleFacts('b', 0), idleFacts('a', 0)],
      eligibleSince: new Map([
        ['young', 5 * MIN],
        ['b', 1 * MIN],
        ['a', 0],
      ]),
      now: 11 * MIN,
      options,
    });
    expect(plan.evictions).toEqual([
      { sessionId: 'a', reason: 'idle_timeout' },
      { sessionId: 'b', reason: 'idle_timeout' },
    ]);
    expect(plan.counts).toEqual({ resident: 3, eligible: 3, idleTimeout: 2, highWaterLru: 0 });
    expect([...plan.eligibleSince.keys()]).toEqual(['young']);
  });

  it('given a session that stopped being eligible, when planned, then its stamp is dropped', () => {
    const plan = planResidency({
      sessions: [{ ...idleFacts('s1', 0), subscribers: 1 }],
      eligibleSince: new Map([['s1', 0]]),
      now: 20 * MIN,
      options,
    });
    expect(plan.evictions).toEqual([]);
    expect(plan.eligibleSince.size).toBe(0);
  });

  it('given 17 sessions, when planned, then LRU evicts eligible ones down to the target of 8', () => {
    const sessions = Array.from({ length: 17 }, (_, i) => idleFacts(`s${i}`, 1000 - i));
    sessions[16] = { ...idleFacts('s16', 0), subscribers: 2 };
    const plan = planResidency({ sessions, eligibleSince: new Map(), now: 1000, options });
    expect(plan.evictions).toHaveLength(9);
    expect(plan.evictions.every((e) => e.reason === 'high_water_lru')).toBe(true);
    expect(plan.evictions.map((e) => e.sessionId)).toEqual([
      's15',
      's14',
      's13',
      's12',
      's11',
      's10',
      's9',
      's8',
      's7',
    ]);
  });

  it('given 16 sessions, when planned, then LRU does not run (only above high water)', () => {
    const sessions = Array.from({ length: 16 }, (_, i) => idleFacts(`s${i}`, i));
    const plan = planResidency({ sessions, eligibleSince: new Map(), now: 1000, options });
    expect(plan.evictions).toEqual([]);
  });

  it('given idle evictions bring the pool under high water, when planned, then LRU does not run', () => {
    const sessions = Array.from({ length: 18 }, (_, i) => idleFacts(`s${i}`, i));
    const plan = planResidency({
      sessions,
      eligibleSince: new Map([
        ['s17', 0],
        ['s16', 0],
      ]),
      now: 10 * MIN,
      options,
    });
    expect(plan.evictions).toEqual([
      { sessionId: 's16', reason: 'idle_timeout' },
      { sessionId: 's17', reason: 'idle_timeout' },
    ]);
  });

  it('given too few eligible sessions above high water, when planned, then only eligible ones go', () => {
    const sessions = Array.from({ length: 20 }, (_, i) =>
      i < 3 ? idleFacts(`s${i}`, i) : { ...idleFacts(`s${i}`, i), inFlightWork: 1 },
    );
    const plan = planResidency({ sessions, eligibleSince: new Map(), now: 1000, options });
    expect(plan.evictions.map((e) => e.sessionId)).toEqual(['s0', 's1', 's2']);
  });

  it('given sessions already deactivating, when planned, then they do not count as resident', () => {
    const sessions = Array.from({ length: 17 }, (_, i) => idleFacts(`s${i}`, i));
    sessions[0] = { ...idleFacts('s0', 0), deactivating: true };
    const plan = planResidency({ sessions, eligibleSince: new Map(), now: 1000, options });
    expect(plan.counts.resident).toBe(16);
    expect(plan.evictions).toEqual([]);
  });
});
