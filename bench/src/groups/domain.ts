import { initialProjection, reduce } from '@agentwire/domain';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { projectionWorkload } from './domain-workload.ts';

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

/** Group `domain`: the reducer's throughput over the least an immutable reducer does. */
export const domainGroup: BenchGroup = {
  name: 'domain',
  description: 'reducer',
  run: reducerFigures,
};
