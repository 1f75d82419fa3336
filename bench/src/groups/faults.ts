/**
 * Group `faults` (issue 9): how long the system takes to be fully caught up after a fault,
 * each beside the same measurement without the fault in the same run:
 * under a steady load of generated session events (400/s over 40 sessions):
 * - `faults.worker_kill_catchup_ms`: from a SIGKILL of one of two persistence workers,
 *   struck while Postgres shows its transaction open, until the events consumer has
 *   acknowledged everything stored before the kill;
 * - `faults.projection_failover_ms`: from a SIGKILL of one of two projection instances
 *   until every session's projection holds what was acknowledged before the kill;
 * - `faults.broker_restart_catchup_ms`: from the return of a broker stopped for 3 s (a
 *   `nats-server` of the bench's own) until the projection and the worker hold everything
 *   acknowledged before it stopped. The outage itself is not counted.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  type BusConnection,
  connectBus,
  deleteProvisioned,
  eventHeaders,
  provision,
} from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { createScratchDatabase, dropScratchDatabase } from '@agentwire/persistence-worker/testing';
import { generateSessionEvents } from '@agentwire/projection/testing';
import { createDatabase, migrate } from '@agentwire/store';
import { type ServiceProcess, startNatsServer, startServiceProcess } from '@agentwire/testing';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { sql } from 'kysely';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const WORKER_MAIN = fileURLToPath(
  new URL('../../../services/persistence-worker/src/main.ts', import.meta.url),
);
const PROJECTION_MAIN = fileURLToPath(
  new URL('../../../services/projection/src/main.ts', import.meta.url),
);
const SESSIONS = 40;
const EVENTS_PER_SESSION = 250;
const OUTAGE_MS = 3_000;

const log = (msg: string) => console.error(`[faults] ${msg}`);

/** A database and a subject prefix of one measurement, and a bus connection on `natsUrl`. */
interface Scratch {
  readonly prefix: string;
  readonly databaseUrl: string;
  readonly bus: BusConnection;
  dispose(): Promise<void>;
}

async function scratch(natsUrl: string): Promise<Scratch> {
  const prefix = `awbf${randomBytes(4).toString('hex')}`;
  const dbName = `aw_bench_faults_${randomBytes(4).toString('hex')}`;
  const databaseUrl = await createScratchDatabase(ADMIN_URL, dbName);
  const db = createDatabase(databaseUrl, { poolSize: 1 });
  await migrate(db);
  await db.destroy();
  const bus = await connectBus({ servers: natsUrl, name: 'bench-faults', noAsyncTraces: true });
  await provision(bus.nc, names(prefix), { eventsMaxAgeMs: 0 });
  return {
    prefix,
    databaseUrl,
    bus,
    async dispose() {
      await deleteProvisioned(bus.jsm, names(prefix)).catch(() => {});
      await bus.close();
      await dropScratchDatabase(ADMIN_URL, dbName);
    },
  };
}

function service(main: string, s: Scratch, natsUrl: string, extra: Record<string, string> = {}) {
  return startServiceProcess(main, {
    NATS_URL: natsUrl,
    DATABASE_URL: s.databaseUrl,
    AW_PREFIX: s.prefix,
    HTTP_PORT: '0',
    ...extra,
  });
}

async function stopAll(procs: readonly ServiceProcess[]): Promise<void> {
  for (const p of procs) p.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
}

/** Polls `check` every 10 ms until it holds; resolves with the time it held (ms epoch). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now();
}

/** Events offered per second while a fault strikes: a steady load, not a backlog. */
const RATE_PER_S = 400;

/**
 * A steady publisher of generated session events (valid `Aw-Prev-Seq` chains) at
 * `RATE_PER_S`, until stopped. `lasts` holds each session's last acknowledged number.
 */
function steadyLoad(bus: BusConnection, prefix: string, seed: number) {
  const n = names(prefix);
  const sessions = Array.from({ length: SESSIONS }, (_, i) =>
    generateSessionEvents(`fs${seed}-${i}`, EVENTS_PER_SESSION, seed * 100 + i, Date.now()),
  );
  const lasts = new Map<string, number>();
  let stopped = false;
  const done = (async () => {
    const started = Date.now();
    let sent = 0;
    for (let k = 0; k < EVENTS_PER_SESSION && !stopped; k += 1) {
      for (const events of sessions) {
        const g = events[k];
        if (g === undefined || stopped) continue;
        const due = started + (sent / RATE_PER_S) * 1000;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        sent += 1;
        void bus.js
          .publish(n.eventSubject(g.event.sessionId), JSON.stringify(g.event), {
            headers: eventHeaders(g.event, g.prev),
          })
          .then(
            () => {
              const sid = g.event.sessionId;
              lasts.set(sid, Math.max(lasts.get(sid) ?? 0, g.event.sequenceNumber));
            },
            () => {}, // the broker is away: this event was not acknowledged, nor counted
          );
      }
    }
  })();
  return {
    /** Each session's last acknowledged number now: what must be applied to be caught up. */
    snapshot: () => new Map(lasts),
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** The stream sequence up to which a durable consumer has acknowledged everything. */
async function ackFloor(jsm: JetStreamManager, stream: string, durable: string): Promise<number> {
  return (await jsm.consumers.info(stream, durable)).ack_floor.stream_seq;
}

/** Worker catch-up (ms): from the kill (struck inside a transaction), or from that moment. */
async function workerCatchup(kill: boolean): Promise<number> {
  const s = await scratch(NATS_URL);
  const workers = [
    await service(WORKER_MAIN, s, NATS_URL),
    await service(WORKER_MAIN, s, NATS_URL),
  ];
  const db = createDatabase(s.databaseUrl, { poolSize: 1 });
  const load = steadyLoad(s.bus, s.prefix, kill ? 5 : 6);
  const n = names(s.prefix);
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the load settles first
    const [victim] = workers;
    await until('the victim transaction', async () => {
      const open = await sql<{ c: number }>`select count(*)::int as c from pg_stat_activity
        where application_name = ${`persistence-worker-${victim?.pid}`}
          and xact_start is not null and state <> 'idle'`.execute(db);
      return (open.rows[0]?.c ?? 0) > 0;
    });
    const at = Date.now();
    if (kill) victim?.kill('SIGKILL');
    const target = (await s.bus.jsm.streams.info(n.eventsStream)).state.last_seq;
    const done = await until('the worker at the fault', async () => {
      return (await ackFloor(s.bus.jsm, n.eventsStream, 'persistence-events')) >= target;
    });
    return done - at;
  } finally {
    await load.stop();
    await db.destroy();
    await stopAll(workers);
    await s.dispose();
  }
}

/** Every session's last applied number, from the projection's commit notices. */
function watchApplied(bus: BusConnection, prefix: string) {
  const applied = new Map<string, number>();
  const notices = names(prefix);
  const sub = bus.nc.subscribe(notices.projectionAppliedFilter, {
    callback: (_err, msg) => {
      const sid = notices.parseProjectionApplied(msg.subject) ?? '';
      applied.set(sid, Math.max(applied.get(sid) ?? 0, Number(msg.string())));
    },
  });
  return {
    reached: (lasts: ReadonlyMap<string, number>) =>
      [...lasts].every(([sid, last]) => (applied.get(sid) ?? 0) >= last),
    stop: () => sub.unsubscribe(),
  };
}

/** Projection catch-up (ms) under steady load, from the kill of one of two instances (or not). */
async function projectionFailover(kill: boolean): Promise<number> {
  const s = await scratch(NATS_URL);
  const env = { AW_PROJECTION_SESSION_AFFINITY: 'on' };
  const instances = [
    await service(PROJECTION_MAIN, s, NATS_URL, { ...env, AW_INSTANCE_ID: 'fa' }),
    await service(PROJECTION_MAIN, s, NATS_URL, { ...env, AW_INSTANCE_ID: 'fb' }),
  ];
  const watch = watchApplied(s.bus, s.prefix);
  const load = steadyLoad(s.bus, s.prefix, kill ? 1 : 2);
  try {
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // both instances own sessions
    const at = Date.now();
    if (kill) instances[0]?.kill('SIGKILL');
    const target = load.snapshot();
    const done = await until('every projection at the fault', () => watch.reached(target));
    return done - at;
  } finally {
    await load.stop();
    watch.stop();
    await stopAll(instances);
    await s.dispose();
  }
}

/** Catch-up (ms) from a broker's return (or from the same moment, with no outage). */
async function brokerRestart(outage: boolean): Promise<number> {
  const nats = await startNatsServer();
  const s = await scratch(nats.url);
  const procs = [
    await service(WORKER_MAIN, s, nats.url),
    await service(PROJECTION_MAIN, s, nats.url),
  ];
  const watch = watchApplied(s.bus, s.prefix);
  // Short requests: one sent while the bench's own connection is still reconnecting would
  // otherwise wait out a 5 s timeout, and that is not the services' catch-up.
  const jsm = await jetstreamManager(s.bus.nc, { timeout: 300, checkAPI: false });
  const n = names(s.prefix);
  const load = steadyLoad(s.bus, s.prefix, outage ? 3 : 4);
  try {
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // the load settles first
    const target = load.snapshot();
    const streamTarget = (await jsm.streams.info(n.eventsStream)).state.last_seq;
    if (outage) {
      await nats.stop();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)); // the fault: an outage
      await nats.start();
    }
    const at = Date.now();
    await until('every projection at the fault', () => watch.reached(target));
    await until('the worker at the fault', () =>
      ackFloor(jsm, n.eventsStream, 'persistence-events').then(
        (floor) => floor >= streamTarget,
        () => false,
      ),
    );
    return Date.now() - at;
  } finally {
    await load.stop();
    watch.stop();
    await stopAll(procs);
    await s.dispose();
    await nats.dispose();
  }
}

export const faultsGroup: BenchGroup = {
  name: 'faults',
  description: 'catch-up after a worker kill, a projection kill and a broker restart',
  async run(): Promise<readonly Figure[]> {
    log('worker kill, then the same without a kill');
    const workerKill = await workerCatchup(true);
    const workerCalm = await workerCatchup(false);
    log(`worker: ${workerKill} ms after the kill, ${workerCalm} ms without`);
    log('projection failover, then the same without a kill');
    const failover = await projectionFailover(true);
    const calm = await projectionFailover(false);
    log(`projection: ${failover} ms after the kill, ${calm} ms without`);
    log('broker restart, then the same without an outage');
    const restart = await brokerRestart(true);
    const steady = await brokerRestart(false);
    log(`broker: ${restart} ms after its return, ${steady} ms without an outage`);
    return [
      {
        name: 'faults.worker_kill_catchup_ms',
        value: workerKill,
        unit: 'ms',
        baseline: workerCalm,
      },
      { name: 'faults.projection_failover_ms', value: failover, unit: 'ms', baseline: calm },
      { name: 'faults.broker_restart_catchup_ms', value: restart, unit: 'ms', baseline: steady },
    ];
  },
};
