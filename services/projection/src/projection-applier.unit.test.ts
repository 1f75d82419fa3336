import type { SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Delivery } from './delivery.ts';
import { ProjectionApplier } from './projection-applier.ts';
import { MemoryProjectionStore } from './projection-store.ts';
import type { Reduce } from './reduce.ts';
import { WriteCoalescer } from './write-coalescer.ts';

/** A toy reducer that records the order it saw: any reordering or loss shows. */
type Seen = { readonly seqs: readonly number[] };
const reduce: Reduce<Seen> = (p, e) => ({ seqs: [...(p?.seqs ?? []), e.sequenceNumber] });

interface Message {
  readonly event: SessionEvent;
  readonly prev: number;
  deliveries: number;
}

/** A tiny broker: messages wait in a pending list until acked; naks put them back. */
class FakeBroker {
  readonly pending: Message[] = [];
  readonly deadLettered: { code: string; seq: number }[] = [];
  acked = 0;

  delivery(m: Message): Delivery {
    m.deliveries += 1;
    let settled = false;
    const once = (f: () => void) => () => {
      if (!settled) {
        settled = true;
        f();
      }
    };
    return {
      event: m.event,
      prev: m.prev,
      deliveryCount: m.deliveries,
      storedAt: 0,
      ack: once(() => {
        this.acked += 1;
      }),
      nak: (_delay) => once(() => this.pending.push(m))(),
      working: () => {},
      deadLetter: (code) =>
        once(() => this.deadLettered.push({ code, seq: m.event.sequenceNumber }))(),
    };
  }
}

function chainOf(sessionId: string, steps: readonly number[]): Message[] {
  let seq = 0;
  return steps.map((step) => {
    const prev = seq;
    seq += step;
    const event = sampleSessionEvent('session_mode_changed', {
      sessionId,
      sequenceNumber: seq,
      id: `${sessionId}-${seq}`,
    });
    return { event, prev, deliveries: 0 };
  });
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function makeApplier(
  store: MemoryProjectionStore,
  clock: { now: number },
  onCommitted?: (sid: string, last: number) => void,
  owns?: (sid: string) => boolean,
) {
  return new ProjectionApplier<Seen>({
    reader: store,
    writer: new WriteCoalescer(store, 2, 50),
    reduce,
    now: () => clock.now,
    holdMs: 50,
    keepAliveMs: 10,
    maxHeld: 1_000,
    gapNakDelayMs: 0,
    recheckMs: 10,
    stuckAfterMs: 1_000,
    maxDeliver: 5,
    ...(onCommitted === undefined ? {} : { onCommitted }),
    ...(owns === undefined ? {} : { owns }),
  });
}

/** The copy an instance forwards to a session's owner: settling it is a no-op. */
function forwardedCopy(d: Delivery): Delivery {
  const noop = () => {};
  return { ...d, forwarded: true, ack: noop, nak: noop, working: noop, deadLetter: noop };
}

describe('ProjectionApplier', () => {
  it('given a gap, holds the later event and applies both in one write when the predecessor arrives', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const applier = makeApplier(store, { now: 0 });
    const [e1, e2, e3] = chainOf('s1', [1, 2, 1]);
    if (e1 === undefined || e2 === undefined || e3 === undefined) throw new Error('chain');
    applier.accept(broker.delivery(e1));
    await flush();
    applier.accept(broker.delivery(e3));
    await flush();
    expect(store.rows.get('s1')).toEqual({ projection: { seqs: [1] }, lastSequence: 1 });
    expect(applier.held()).toBe(1);
    const trips = store.roundTrips;
    applier.accept(broker.delivery(e2));
    await flush();
    await flush();
    expect(store.rows.get('s1')).toEqual({ projection: { seqs: [1, 3, 4] }, lastSequence: 4 });
    expect(store.roundTrips).toBe(trips + 1);
    expect(broker.acked).toBe(3);
  });

  it('given a commit notice that arrives before the next event, applies that event without waiting for a recheck', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const applier = makeApplier(store, { now: 0 });
    const [e1, e2, e3] = chainOf('s1', [1, 1, 1]);
    if (e1 === undefined || e2 === undefined || e3 === undefined) throw new Error('chain');
    applier.accept(broker.delivery(e1));
    await flush();
    store.rows.set('s1', { projection: { seqs: [1, 2] }, lastSequence: 2 }); // another instance applied 2
    applier.noteCommitted('s1', 2);
    applier.accept(broker.delivery(e3));
    await flush();
    await flush();
    expect(store.rows.get('s1')).toEqual({ projection: { seqs: [1, 2, 3] }, lastSequence: 3 });
  });

  it('keeps held deliveries, forwarded copies included, through a retryable store error and applies them on the re-check', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const clock = { now: 0 };
    let failures = 2; // the first read, and the one the second delivery asked for
    const flaky = {
      get: (sid: string) => {
        if (failures-- > 0)
          return Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
        return store.get(sid);
      },
    };
    const applier = new ProjectionApplier<Seen>({
      reader: flaky,
      writer: new WriteCoalescer(store, 1, 10),
      reduce,
      now: () => clock.now,
      holdMs: 10_000,
      keepAliveMs: 10_000,
      maxHeld: 100,
      gapNakDelayMs: 0,
      recheckMs: 100,
      stuckAfterMs: 10_000,
      maxDeliver: 5,
    });
    const [e1, e2] = chainOf('s1', [1, 1]);
    if (e1 === undefined || e2 === undefined) throw new Error('chain');
    applier.accept(forwardedCopy(broker.delivery(e1)));
    applier.accept(broker.delivery(e2));
    await flush();
    await flush();
    expect(applier.stats.storeErrors).toBe(2);
    expect(applier.held()).toBe(2);
    expect(broker.pending).toHaveLength(0);
    clock.now = 150;
    applier.tick();
    await flush();
    await flush();
    expect(store.rows.get('s1')).toEqual({ projection: { seqs: [1, 2] }, lastSequence: 2 });
    expect(applier.held()).toBe(0);
  });

  it('keeps held events alive and naks the newest beyond maxHeld', async () => {
    const store = new MemoryProjectionStore();
    const clock = { now: 0 };
    const applier = new ProjectionApplier<Seen>({
      reader: store,
      writer: new WriteCoalescer(store, 1, 10),
      reduce,
      now: () => clock.now,
      holdMs: 10_000,
      keepAliveMs: 100,
      maxHeld: 2,
      gapNakDelayMs: 0,
      recheckMs: 10_000,
      stuckAfterMs: 10_000,
      maxDeliver: 5,
    });
    const naked: number[] = [];
    let working = 0;
    for (const m of chainOf('s1', [1, 1, 1, 1]).slice(1)) {
      applier.accept({
        event: m.event,
        prev: m.prev,
        deliveryCount: 1,
        storedAt: 0,
        ack() {},
        nak: () => naked.push(m.event.sequenceNumber),
        working: () => (working += 1),
        deadLetter() {},
      });
    }
    await flush();
    clock.now = 200;
    applier.tick();
    expect(working).toBe(3);
    expect(naked).toEqual([4]);
    expect(applier.held()).toBe(2);
  });

  it('given a session another instance owns, holds the delivery and acks it on the owner’s notice, without reading or writing', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const clock = { now: 0 };
    const appliers: ProjectionApplier<Seen>[] = [];
    const notify = (sid: string, last: number) => {
      for (const a of appliers) a.noteCommitted(sid, last);
    };
    const owner = makeApplier(store, clock, notify, () => true);
    const holder = makeApplier(store, clock, notify, () => false);
    appliers.push(owner, holder);
    const [e1, e2] = chainOf('s1', [1, 1]);
    if (e1 === undefined || e2 === undefined) throw new Error('chain');
    owner.accept(broker.delivery(e1));
    const d2 = broker.delivery(e2);
    holder.accept(d2);
    owner.accept(forwardedCopy(d2));
    await flush();
    await flush();
    expect(store.rows.get('s1')).toEqual({ projection: { seqs: [1, 2] }, lastSequence: 2 });
    expect(broker.acked).toBe(2);
    expect(holder.stats).toMatchObject({ reads: 0, commits: 0, ackedForOwner: 1 });
    expect(holder.held()).toBe(0);
  });

  it('given an owner that never applies the forwarded copy, the holder takes over after recheckMs', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const clock = { now: 0 };
    const holder = makeApplier(store, clock, undefined, () => false);
    const [e1] = chainOf('s1', [1]);
    if (e1 === undefined) throw new Error('chain');
    holder.accept(broker.delivery(e1));
    await flush();
    expect(store.rows.get('s1')).toBeUndefined();
    clock.now = 5;
    holder.tick();
    await flush();
    expect(store.rows.get('s1')).toBeUndefined();
    clock.now = 20;
    holder.tick();
    await flush();
    await flush();
    expect(store.rows.get('s1')).toEqual({ projection: { seqs: [1] }, lastSequence: 1 });
    expect(broker.acked).toBe(1);
  });

  it('acks a duplicate without writing', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const applier = makeApplier(store, { now: 0 });
    const [e1] = chainOf('s1', [1]);
    if (e1 === undefined) throw new Error('chain');
    applier.accept(broker.delivery(e1));
    await flush();
    applier.accept(broker.delivery(e1));
    await flush();
    expect(applier.stats.duplicates).toBe(1);
    expect(store.rows.get('s1')?.projection).toEqual({ seqs: [1] });
  });

  it('reports a session whose predecessor was dead-lettered as stuck, and naks held events after holdMs', async () => {
    const store = new MemoryProjectionStore();
    const broker = new FakeBroker();
    const clock = { now: 0 };
    const applier = makeApplier(store, clock);
    const [, e2] = chainOf('s1', [1, 1]);
    if (e2 === undefined) throw new Error('chain');
    applier.markBlocked('s1', 1, 'invalid_payload');
    applier.accept(broker.delivery(e2));
    await flush();
    clock.now = 2_000;
    applier.tick();
    expect(applier.stats.gapNaks).toBe(1);
    expect(broker.pending).toHaveLength(1);
    expect(applier.stuck()).toEqual([
      {
        sessionId: 's1',
        awaitedSeq: undefined,
        waitingMs: 2_000,
        blockedBy: { seq: 1, code: 'invalid_payload' },
      },
    ]);
  });

  it('property: competing instances, shuffled and duplicated deliveries: every session equals its in-order reduction', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 25 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 3 }),
        fc.infiniteStream(fc.nat()),
        fc.boolean(),
        async (sessions, instanceCount, random, affinity) => {
          const store = new MemoryProjectionStore();
          const broker = new FakeBroker();
          const clock = { now: 0 };
          const appliers: ProjectionApplier<Seen>[] = [];
          for (let i = 0; i < instanceCount; i++) {
            const notify = (sid: string, last: number) => {
              for (const other of appliers) other.noteCommitted(sid, last);
            };
            // With affinity each session has an owner; a copy forwarded to it may be lost.
            const owns = (sid: string) => Number(sid.slice(1)) % instanceCount === i;
            appliers.push(makeApplier(store, clock, notify, affinity ? owns : undefined));
          }
          const chains = sessions.map((steps, i) => chainOf(`s${i}`, steps));
          const all = chains.flat();
          broker.pending.push(
            ...all,
            ...all.filter(() => random.next().value % 4 === 0).map((m) => ({ ...m })),
          );
          const settled = () =>
            chains.every(
              (c) =>
                store.rows.get(c[0]?.event.sessionId ?? '')?.lastSequence ===
                c.at(-1)?.event.sequenceNumber,
            ) &&
            broker.pending.length === 0 &&
            appliers.every((a) => a.held() === 0);
          for (let round = 0; round < 10_000 && !settled(); round++) {
            const take = broker.pending.splice(0, broker.pending.length);
            take.sort(() => (random.next().value % 3) - 1);
            for (const m of take) {
              const target = appliers[random.next().value % appliers.length];
              const d = broker.delivery(m);
              target?.accept(d);
              const owner = appliers[Number(m.event.sessionId.slice(1)) % instanceCount];
              if (affinity && owner !== target && random.next().value % 5 !== 0)
                owner?.accept(forwardedCopy(d));
            }
            await flush();
            clock.now += 20;
            for (const a of appliers) a.tick();
            await flush();
          }
          for (const chain of chains) {
            const sid = chain[0]?.event.sessionId ?? '';
            expect(store.rows.get(sid)).toEqual({
              projection: { seqs: chain.map((m) => m.event.sequenceNumber) },
              lastSequence: chain.at(-1)?.event.sequenceNumber,
            });
          }
          expect(broker.deadLettered).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
