/**
 * Group `projection` (issue 5): the projection's store-to-commit lag at 2,000 events/s
 * offered, and the rebuild rate from the events stream beside a raw read of the same
 * stream, against the local servers (`DATABASE_URL` / `NATS_URL` or the defaults), in a
 * database and subject prefix of its own.
 */
import { randomBytes } from 'node:crypto';
import {
  type BusConnection,
  connectBus,
  deadLetterStream,
  eventHeaders,
  provision,
} from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import {
  PgProjectionStore,
  type ProjectionProcess,
  rebuildFromStream,
  reduceSessionProjection,
  spawnProjection,
} from '@agentwire/projection';
import { type GeneratedEvent, generateSessionEvents } from '@agentwire/projection/testing';
import { createDatabase } from '@agentwire/store';
import { DeliverPolicy } from '@nats-io/jetstream';
import { sql } from 'kysely';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { percentile } from '../stats.ts';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const LAG_RATE_PER_S = 2_000;
const LAG_SECONDS = 6;
const LAG_SESSIONS = 50;
/** The lag is measured with one instance, then with this many sharing the load (issue 16). */
const LAG_INSTANCES_MANY = Number(process.env.PROJECTION_BENCH_INSTANCES ?? 3);
const REBUILD_SESSIONS = 60;
const REBUILD_EVENTS_PER_SESSION = 1_000;

const log = (msg: string) => console.error(`[projection] ${msg}`);

async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `aw_bench_projection_${randomBytes(4).toString('hex')}`;
  const admin = createDatabase(ADMIN_URL, { poolSize: 1 });
  await sql.raw(`create database ${name}`).execute(admin);
  await admin.destroy();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = createDatabase(ADMIN_URL, { poolSize: 1 });
      await sql.raw(`drop database if exists ${name} with (force)`).execute(a);
      await a.destroy();
    },
  };
}

/** Offers `LAG_RATE_PER_S` in-order events over `LAG_SESSIONS` sessions; returns lags (ms). */
async function measureLag(bus: BusConnection, prefix: string, tag: string): Promise<number[]> {
  const n = names(prefix);
  const total = LAG_RATE_PER_S * LAG_SECONDS;
  const perSession = Math.ceil(total / LAG_SESSIONS);
  const sessions = Array.from({ length: LAG_SESSIONS }, (_, i) =>
    generateSessionEvents(`${tag}${i}`, perSession, i, Date.now()),
  );
  const order: GeneratedEvent[] = [];
  for (let k = 0; k < perSession; k++)
    for (const s of sessions) if (s[k] !== undefined) order.push(s[k] as GeneratedEvent);
  const sentAt = new Map<string, Map<number, number>>();
  const seen = new Map<string, number>();
  const lags: number[] = [];
  const notices = names(prefix);
  const sub = bus.nc.subscribe(notices.projectionAppliedFilter, {
    callback: (_err, msg) => {
      const now = performance.now();
      const sid = notices.parseProjectionApplied(msg.subject) ?? '';
      const last = Number(msg.string());
      const sent = sentAt.get(sid);
      if (sent === undefined) return;
      for (const [seq, at] of sent) {
        if (seq > last) continue;
        lags.push(now - at);
        sent.delete(seq);
      }
      seen.set(sid, Math.max(seen.get(sid) ?? 0, last));
    },
  });
  const tickMs = 10;
  const perTick = (LAG_RATE_PER_S * tickMs) / 1000;
  const started = performance.now();
  const inflight: Promise<unknown>[] = [];
  for (let i = 0; i < order.length; i += perTick) {
    const due = started + (i / LAG_RATE_PER_S) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (const g of order.slice(i, i + perTick)) {
      const sid = g.event.sessionId;
      let sent = sentAt.get(sid);
      if (sent === undefined) {
        sent = new Map();
        sentAt.set(sid, sent);
      }
      sent.set(g.event.sequenceNumber, performance.now());
      inflight.push(
        bus.js.publish(n.eventSubject(sid), JSON.stringify(g.event), {
          headers: eventHeaders(g.event, g.prev),
        }),
      );
    }
  }
  await Promise.all(inflight);
  const offered = order.length / ((performance.now() - started) / 1000);
  log(`offered ${order.length} events at ${offered.toFixed(0)} events/s`);
  const deadline = Date.now() + 60_000;
  while (lags.length < order.length && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  sub.unsubscribe();
  if (lags.length < order.length)
    throw new Error(`only ${lags.length} of ${order.length} events were applied in time`);
  return lags.sort((a, b) => a - b);
}

async function publishBacklog(bus: BusConnection, prefix: string): Promise<number> {
  const n = names(prefix);
  let count = 0;
  for (let s = 0; s < REBUILD_SESSIONS; s++) {
    const events = generateSessionEvents(`rb${s}`, REBUILD_EVENTS_PER_SESSION, 1_000 + s);
    for (let i = 0; i < events.length; i += 500) {
      await Promise.all(
        events.slice(i, i + 500).map((g) =>
          bus.js.publish(n.eventSubject(g.event.sessionId), JSON.stringify(g.event), {
            headers: eventHeaders(g.event, g.prev),
          }),
        ),
      );
    }
    count += events.length;
  }
  return count;
}

/** Messages/s of a bare ordered read of every `ev` subject (the rebuild's raw baseline). */
async function rawReadPerS(bus: BusConnection, prefix: string): Promise<number> {
  const n = names(prefix);
  const consumer = await bus.js.consumers.get(n.eventsStream, {
    filter_subjects: n.allEventsFilter,
    deliver_policy: DeliverPolicy.All,
  });
  const started = performance.now();
  let count = 0;
  const messages = await consumer.consume({ max_messages: 5_000 });
  for await (const msg of messages) {
    count += 1;
    if (msg.info.pending === 0) break;
  }
  messages.stop();
  await consumer.delete().catch(() => {});
  return count / ((performance.now() - started) / 1000);
}

async function deleteStreams(bus: BusConnection, prefix: string): Promise<void> {
  const n = names(prefix);
  for (const stream of [
    n.eventsStream,
    n.commandsStream,
    deadLetterStream(n),
    `KV_${n.leaseBucket}`,
  ]) {
    await bus.jsm.streams.delete(stream).catch(() => {});
  }
}

/**
 * `projection.lag_p50_ms` and `lag_p99_ms` with one instance and with three
 * (`lag_p99_ms_3`), `projection.rebuild_events_per_s` beside the raw read, and their ratio.
 */
export const projectionGroup: BenchGroup = {
  name: 'projection',
  description: 'projection lag at 2,000 events/s offered and rebuild rate from the stream',
  async run(): Promise<readonly Figure[]> {
    const prefix = `awbp${randomBytes(4).toString('hex')}`;
    const db = await scratchDatabase();
    const bus = await connectBus({
      servers: NATS_URL,
      name: 'bench-projection',
      noAsyncTraces: true,
    });
    const services: ProjectionProcess[] = [];
    try {
      await provision(bus.nc, names(prefix), { eventsMaxAgeMs: 0 });
      // The same offered load on one instance, then on several sharing it (new sessions).
      const lagWith = async (instances: number, tag: string): Promise<number[]> => {
        for (let i = 0; i < instances; i++) {
          services.push(
            await spawnProjection({
              NATS_URL,
              DATABASE_URL: db.url,
              AW_PREFIX: prefix,
              AW_INSTANCE_ID: `bench-${tag}-${i}`,
            }),
          );
        }
        log(
          `lag: ${instances} instance(s), ${LAG_SESSIONS} sessions, ${LAG_RATE_PER_S} events/s for ${LAG_SECONDS} s`,
        );
        const lags = await measureLag(bus, prefix, tag);
        for (const s of services.splice(0)) {
          s.child.kill('SIGTERM');
          await s.exited;
          const stats = s.lines.find((l) => l.includes('projection applier stats'));
          if (stats !== undefined) log(`instance: ${JSON.stringify(JSON.parse(stats).stats)}`);
        }
        return lags;
      };
      const lags = await lagWith(1, 'lag');
      const lagsMany = await lagWith(LAG_INSTANCES_MANY, 'lagm');

      const backlog = await publishBacklog(bus, prefix);
      log(`rebuild: ${backlog} backlog events + the lag run's`);
      const raw = await rawReadPerS(bus, prefix);
      const store = new PgProjectionStore(createDatabase(db.url));
      const started = performance.now();
      const result = await rebuildFromStream({
        js: bus.js,
        names: names(prefix),
        store,
        reduce: reduceSessionProjection,
        batchSessions: 200,
      });
      const rebuildRate = result.eventsRead / ((performance.now() - started) / 1000);
      log(`rebuild: ${result.eventsRead} events, ${result.sessionsWritten} sessions written`);
      return [
        { name: 'projection.lag_p50_ms', value: percentile(lags, 50), unit: 'ms' },
        { name: 'projection.lag_p99_ms', value: percentile(lags, 99), unit: 'ms' },
        {
          name: `projection.lag_p50_ms_${LAG_INSTANCES_MANY}`,
          value: percentile(lagsMany, 50),
          unit: 'ms',
        },
        {
          name: `projection.lag_p99_ms_${LAG_INSTANCES_MANY}`,
          value: percentile(lagsMany, 99),
          unit: 'ms',
        },
        { name: 'projection.raw_read_events_per_s', value: raw, unit: 'events/s' },
        {
          name: 'projection.rebuild_events_per_s',
          value: rebuildRate,
          unit: 'events/s',
          baseline: raw,
        },
        { name: 'projection.rebuild_ratio', value: rebuildRate / raw, unit: 'ratio' },
      ];
    } finally {
      for (const s of services) s.child.kill('SIGKILL');
      await deleteStreams(bus, prefix);
      await bus.close();
      await db.drop();
    }
  },
};
