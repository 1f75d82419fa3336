import { randomBytes } from 'node:crypto';
import { type BusConnection, followSession } from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import type { StartedRuntime } from '@agentwire/runtime';
import type { createDatabase } from '@agentwire/store';
import { startBenchRuntime } from '../bench-runtime.ts';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { median, percentile } from '../stats.ts';
import { COLD_MESSAGES, COLD_PARTS, coldOpen } from './cold-open.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const LATENCY_SAMPLES = 5_000;
const SESSIONS = 50;
const EVENTS_PER_SESSION = 200;
/** Paired raw/runtime append-rate rounds; the figures are their medians. */
const APPEND_ROUNDS = 3;

interface Ctx {
  readonly runtime: StartedRuntime;
  readonly bus: BusConnection;
  readonly prefix: string;
  readonly db: ReturnType<typeof createDatabase>;
}

/** A stream consumer that resolves a waiter when message `n` (1-based) arrives. */
function arrivals() {
  const waiters = new Map<number, () => void>();
  let received = 0;
  return {
    arrived() {
      received += 1;
      waiters.get(received)?.();
      waiters.delete(received);
    },
    wait(n: number): Promise<void> {
      if (received >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.set(n, resolve));
    },
  };
}

/**
 * Latency samples of both paths, interleaved one for one so that both see the same machine
 * (a GC pause or a noisy neighbour lands on either path alike, not on one phase):
 * - live: `emit` through the runtime's append pipeline (number, fenced publish with
 *   headers, steps) until a `followSession` subscriber yields the event;
 * - raw: an awaited JetStream publish of a same-sized body until a plain consumer of the
 *   same stream receives it.
 * The first 200 samples of each are warm-up and dropped.
 */
async function latencies(ctx: Ctx): Promise<{ live: number[]; raw: number[] }> {
  const sid = `bench-live-${randomBytes(4).toString('hex')}`;
  await ctx.runtime.host.activate(sid, 'open');
  const emitter = ctx.runtime.host.residentEmitter(sid);
  if (emitter === undefined) throw new Error('no emitter');
  const follower = followSession(ctx.bus.js, namesOf(ctx.prefix), sid, { afterSequence: 0 });
  const liveSeen = arrivals();
  const following = (async () => {
    for await (const _ of follower) liveSeen.arrived();
  })();

  const n = namesOf(ctx.prefix);
  const subject = n.eventSubject(`rawbench-${randomBytes(4).toString('hex')}`);
  const consumer = await ctx.bus.js.consumers.get(n.eventsStream, { filter_subjects: subject });
  const messages = await consumer.consume({ max_messages: 256 });
  const rawSeen = arrivals();
  const consuming = (async () => {
    for await (const _ of messages) rawSeen.arrived();
  })();
  const body = JSON.stringify({
    id: 'x'.repeat(36),
    payload: { delta: 'token ', done: false },
    traceId: TRACE,
    pad: 'x'.repeat(120),
  });

  const live: number[] = [];
  const raw: number[] = [];
  for (let i = 1; i <= LATENCY_SAMPLES; i += 1) {
    let started = performance.now();
    await ctx.bus.js.publish(subject, body);
    await rawSeen.wait(i);
    raw.push(performance.now() - started);

    started = performance.now();
    await emitter.emit('model_streaming', 'benchturn', TRACE, {
      delta: 'token ',
      done: false,
      kind: 'text_delta',
    });
    await liveSeen.wait(i);
    live.push(performance.now() - started);
  }
  await follower.stop();
  await following;
  await messages.close();
  await consuming;
  const sorted = (xs: number[]) => xs.slice(200).sort((a, b) => a - b);
  return { live: sorted(live), raw: sorted(raw) };
}

/** Events per second appended through the runtime across 50 sessions, each serialised. */
async function appendRate(ctx: Ctx): Promise<number> {
  const emitters = [];
  for (let s = 0; s < SESSIONS; s += 1) {
    const sid = `bench-append-${s}-${randomBytes(3).toString('hex')}`;
    await ctx.runtime.host.activate(sid, 'open');
    const emitter = ctx.runtime.host.residentEmitter(sid);
    if (emitter !== undefined) emitters.push(emitter);
  }
  const started = performance.now();
  await Promise.all(
    emitters.map(async (emitter) => {
      for (let i = 0; i < EVENTS_PER_SESSION; i += 1) {
        await emitter.emit('model_streaming', 'benchturn', TRACE, {
          delta: 'token ',
          done: false,
          kind: 'text_delta',
        });
      }
    }),
  );
  return (SESSIONS * EVENTS_PER_SESSION) / ((performance.now() - started) / 1000);
}

/** The same shape with raw publishes: 50 chains of awaited publishes. */
async function rawAppendRate(ctx: Ctx): Promise<number> {
  const n = namesOf(ctx.prefix);
  const body = JSON.stringify({
    id: 'x'.repeat(36),
    payload: { delta: 'token ', done: false },
    traceId: TRACE,
    pad: 'x'.repeat(120),
  });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      const subject = n.eventSubject(`rawappend-${s}`);
      for (let i = 0; i < EVENTS_PER_SESSION; i += 1) await ctx.bus.js.publish(subject, body);
    }),
  );
  return (SESSIONS * EVENTS_PER_SESSION) / ((performance.now() - started) / 1000);
}

/**
 * Runtime figures (issue 6): live latency from `appendEvent` to a following subscriber
 * against a raw JetStream publish-to-consumer, sampled alternately in the same run; append throughput across 50
 * sessions against raw awaited publishes with the same shape; and the cold open of a
 * session of 10,000 messages and 50,000 parts (median of 3). Uses `NATS_URL` and
 * `DATABASE_URL` (defaults: the local servers), a unique subject prefix, and removes what
 * it created.
 */
export const runtimeGroup: BenchGroup = {
  name: 'runtime',
  description: 'append-to-subscriber latency, append throughput over 50 sessions, cold open',
  async run(): Promise<Figure[]> {
    const bench = await startBenchRuntime('runtime');
    const ctx: Ctx = bench;
    try {
      const { live, raw } = await latencies(ctx);
      // Raw and runtime rates back to back in each round, so both see the same machine.
      const rawRates: number[] = [];
      const rates: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < APPEND_ROUNDS; round += 1) {
        const rawRound = await rawAppendRate(ctx);
        const runtimeRound = await appendRate(ctx);
        rawRates.push(rawRound);
        rates.push(runtimeRound);
        ratios.push(runtimeRound / rawRound);
      }
      const rawRate = median(rawRates);
      const rate = median(rates);
      const cold = await coldOpen(ctx.runtime, ctx.db, COLD_MESSAGES, COLD_PARTS);
      const rawP99 = percentile(raw, 99);
      const liveP99 = percentile(live, 99);
      return [
        { name: 'runtime.live_latency_p50_ms', value: percentile(live, 50), unit: 'ms' },
        { name: 'runtime.live_latency_p99_ms', value: liveP99, unit: 'ms' },
        { name: 'runtime.raw_latency_p99_ms', value: rawP99, unit: 'ms' },
        { name: 'runtime.live_latency_p99_ratio', value: liveP99 / rawP99, unit: 'ratio' },
        { name: 'runtime.append_events_per_s', value: rate, unit: 'events/s' },
        { name: 'runtime.raw_append_events_per_s', value: rawRate, unit: 'events/s' },
        { name: 'runtime.append_ratio', value: median(ratios), unit: 'ratio' },
        // Issue 16: the cold open over a raw read of the same rows, in the same run.
        { name: 'runtime.cold_open_ms', value: cold.ms, unit: 'ms', baseline: cold.rawMs },
        { name: 'runtime.cold_open_ratio', value: cold.ms / cold.rawMs, unit: 'ratio' },
      ];
    } finally {
      await bench.stop();
    }
  },
};

if (import.meta.main) {
  const figures = await runtimeGroup.run();
  for (const f of figures)
    console.log(
      `${f.name}\t${f.value.toFixed(3)} ${f.unit}${f.baseline === undefined ? '' : `\tbaseline ${f.baseline.toFixed(3)}\tratio ${(f.value / f.baseline).toFixed(3)}`}`,
    );
}
