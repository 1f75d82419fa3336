import type { SessionEvent } from '@agentwire/contracts';
import { sampleEventPayloads } from '@agentwire/contracts/testing';
import { InMemorySessionEventStore, initialProjection, reduce } from '@agentwire/domain';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { makeEvent, projectionWorkload } from './domain-workload.ts';

const REPEATS = 5;

/** Best rate of `REPEATS` runs of `body`, which processes `count` events. */
async function bestRate(count: number, body: () => unknown): Promise<number> {
  let best = 0;
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    await body();
    const seconds = (performance.now() - started) / 1000;
    best = Math.max(best, count / seconds);
  }
  return best;
}

async function reducerFigures(): Promise<Figure[]> {
  const events = projectionWorkload('bench', 10_000);
  const start = initialProjection('bench', 0);
  const reduced = () => events.reduce(reduce, start);
  // Raw baseline: the least an immutable reducer does per event, one object spread.
  const spreadOnly = () => {
    let p = start;
    for (const e of events)
      p = { ...p, updatedAt: e.timestamp, lastSequenceNumber: e.sequenceNumber };
    return p;
  };
  reduced();
  spreadOnly();
  const value = await bestRate(events.length, reduced);
  const baseline = await bestRate(events.length, spreadOnly);
  return [{ name: 'domain.reducer_events_per_s', value, unit: 'events/s', baseline }];
}

/**
 * A 24-character flat string decoded from bytes, as a streamed token arrives from the
 * network: equal-sized for every turn and never a V8 rope (template literals of 13+
 * characters are), so the memory figure compares like with like.
 */
function networkText(text: string): string {
  return Buffer.from(text.padEnd(24, ' ')).toString('utf8');
}

/** A turn of 2,000 streaming chunks between its start and its seal. */
function streamingTurn(sessionId: string, turn: number, chunks: number): SessionEvent[] {
  const t = `turn-${turn}`;
  const base = turn * (chunks + 2);
  const events = [makeEvent(sessionId, t, 'turn_started', base)];
  for (let i = 1; i <= chunks; i++) {
    const payload = {
      ...sampleEventPayloads.model_streaming,
      delta: networkText(`chunk ${turn}.${i}`),
    };
    events.push(makeEvent(sessionId, t, 'model_streaming', base + i, payload));
  }
  events.push(makeEvent(sessionId, t, 'turn_complete', base + chunks + 1));
  return events;
}

async function appendFigures(): Promise<Figure[]> {
  const events = Array.from({ length: 50 }, (_, i) => streamingTurn('bench', i + 1, 2_000)).flat();
  const append = async () => {
    const store = new InMemorySessionEventStore({ now: () => 0 });
    for (const e of events) await store.append(e);
  };
  // Raw baseline: numbering by object spread into an array, no retention.
  const rawPush = async () => {
    const held: SessionEvent[] = [];
    let seq = 0;
    for (const e of events) held.push({ ...e, sequenceNumber: ++seq } as SessionEvent);
  };
  const value = await bestRate(events.length, append);
  const baseline = await bestRate(events.length, rawPush);
  return [{ name: 'domain.store_append_events_per_s', value, unit: 'events/s', baseline }];
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('domain bench needs node --expose-gc');
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** Heap held by a store fed `turns` streaming turns of 2,000 chunks each. */
function storeHeap(turns: number): number {
  const before = heapUsed();
  const store = new InMemorySessionEventStore({ now: () => 0 });
  for (let turn = 1; turn <= turns; turn++) {
    for (const e of streamingTurn('bench', turn, 2_000)) store.appendSync(e);
  }
  const held = heapUsed() - before;
  if (store.counters().heldEvents === 0) throw new Error('store unexpectedly empty');
  return held;
}

/**
 * Heap held by the store after 100 streaming turns over its heap after 5 (R3.3, R3.4). A
 * warm-up run first, so that compiled code and feedback are not counted as the store's;
 * each heap is the median of three runs.
 */
function memoryFigures(): Figure[] {
  storeHeap(20);
  const median = (turns: number) => {
    const runs = [storeHeap(turns), storeHeap(turns), storeHeap(turns)].sort((a, b) => a - b);
    return runs[1] as number;
  };
  const afterFive = median(5);
  const afterHundred = median(100);
  return [
    { name: 'domain.store_memory_ratio', value: afterHundred / afterFive, unit: 'ratio' },
    { name: 'domain.store_heap_5_turns_bytes', value: afterFive, unit: 'bytes' },
    { name: 'domain.store_heap_100_turns_bytes', value: afterHundred, unit: 'bytes' },
  ];
}

/** Group `domain`: reducer throughput, store append throughput, store memory under retention. */
export const domainGroup: BenchGroup = {
  name: 'domain',
  description: 'reducer and in-memory event store',
  nodeFlags: ['--expose-gc'],
  async run() {
    const memory = memoryFigures();
    return [...(await reducerFigures()), ...(await appendFigures()), ...memory];
  },
};
