import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BusConnection, connectBus, followSession } from '@agentwire/bus';
import { type Names, names as namesOf, type SessionEvent } from '@agentwire/contracts';
import { spawnProjection } from '@agentwire/projection';
import { RuntimeConfig, type StartedRuntime, startRuntime } from '@agentwire/runtime';
import { type AppendLoad, startAppendLoad } from '@agentwire/runtime/testing';
import { createDatabase } from '@agentwire/store';
import type { Logger } from '@agentwire/telemetry';
import {
  createTestEnvironment,
  type NatsCluster,
  natsServerSupport,
  type ServiceProcess,
  startNatsCluster,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerProcess } from './persistence-worker-process.ts';

const SESSIONS = 20;
const STEP = 10;
const support = natsServerSupport();

/** Keeps the runtime's warnings: a lease it lost would show here. */
function warningLogger(warnings: string[]): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (_o: object, msg?: string) => void warnings.push(msg ?? ''),
    error: (_o: object, msg?: string) => void warnings.push(msg ?? ''),
    child: () => logger,
  };
  return logger;
}

describe.skipIf(!support.ok)(
  'a three-node cluster loses the node leading the events stream',
  () => {
    let cluster: NatsCluster;
    let env: TestEnvironment;
    let n: Names;
    let runtime: StartedRuntime;
    let bus: BusConnection;
    let services: ServiceProcess[] = [];
    const warnings: string[] = [];
    const sids = Array.from({ length: SESSIONS }, (_, i) => `fail-${i}`);

    beforeAll(async () => {
      [cluster, env] = await Promise.all([startNatsCluster(), createTestEnvironment()]);
      n = namesOf(env.prefix);
      const common = {
        NATS_URL: cluster.urls.join(','),
        DATABASE_URL: env.databaseUrl,
        AW_PREFIX: env.prefix,
        AW_REPLICAS: '3',
      };
      const workspace = await mkdtemp(path.join(tmpdir(), 'aw-cluster-'));
      const config = RuntimeConfig.parse({
        ...common,
        AW_WORKSPACE_ROOT: workspace,
        AW_INSTANCE_ID: 'rt-cluster',
      });
      runtime = await startRuntime(config, warningLogger(warnings), { recordUsage() {} });
      services = [await startWorkerProcess(common), await spawnProjection(common)];
      bus = await connectBus({ servers: cluster.urls.join(','), name: 'failover-test' });
    });

    afterAll(async () => {
      for (const s of services) s.kill('SIGTERM');
      await Promise.all(services.map((s) => s.exited));
      await runtime?.stop();
      await bus?.close();
      await cluster?.dispose();
      await env?.dispose();
    });

    it('loses no acknowledged event, numbers stay gapless, leases and followers survive', async () => {
      const followed = new Map<string, SessionEvent[]>(sids.map((s) => [s, []]));
      const followers = sids.map((sid) => {
        const follower = followSession(bus.js, n, sid, { afterSequence: 0 });
        const done = (async () => {
          for await (const e of follower) followed.get(sid)?.push(e);
        })();
        return { follower, done };
      });
      const load: AppendLoad = startAppendLoad(runtime.host, sids);
      const progress = async (atLeast: number, what: string) =>
        waitUntil(() => load.minAcked() >= atLeast, { timeoutMs: 120_000, intervalMs: 50, what });

      await progress(STEP, 'every session to have appends acknowledged');
      const placed = await cluster.waitForStream(n.eventsStream);
      expect(placed.replicas).toHaveLength(2);
      const leader = placed.leader;
      if (!leader) throw new Error('the events stream has no leader');
      const atKill = load.minAcked();
      await leader.kill();
      await progress(atKill + STEP, 'appends acknowledged with the old leader dead');
      const moved = await cluster.placement(n.eventsStream);
      expect(moved.leader).toBeDefined();
      expect(moved.leader).not.toBe(leader);
      await leader.start();
      await cluster.waitForStream(n.eventsStream, 60_000);
      await progress(load.minAcked() + STEP, 'appends acknowledged with the node back');
      await load.stop();

      const db = createDatabase(env.databaseUrl, { poolSize: 2 });
      try {
        for (const sid of sids) {
          const acked = load.acked.get(sid) ?? [];
          const ackedSeqs = acked.map((a) => a.sequence);
          // Acknowledged numbers only rise; a reopen may skip one stored but never acknowledged.
          expect(ackedSeqs.every((s, i) => i === 0 || s > (ackedSeqs[i - 1] ?? 0))).toBe(true);
          // The stream's last number: followers, resumed by themselves, reach it.
          const info = await bus.jsm.streams.getMessage(n.eventsStream, {
            last_by_subj: n.eventSubject(sid),
          });
          const last = Number(info?.header.get('Aw-Seq'));
          expect(last).toBeGreaterThanOrEqual(Math.max(...ackedSeqs));
          await waitUntil(() => (followed.get(sid)?.at(-1)?.sequenceNumber ?? 0) >= last, {
            timeoutMs: 60_000,
            what: `the follower of ${sid} to reach ${last} (followers at ${sids.map((s) => followed.get(s)?.at(-1)?.sequenceNumber ?? 0).join(',')})`,
          });
          const seen = (followed.get(sid) ?? []).map((e) => e.sequenceNumber);
          expect(seen).toEqual(Array.from({ length: last }, (_, i) => i + 1));
          for (const s of ackedSeqs) expect(seen).toContain(s);

          // Postgres: one entry per stored checkpoint, every acknowledged one, no gap, no copy.
          await waitUntil(
            async () => {
              const row = await db
                .selectFrom('sessions')
                .select('last_sequence')
                .where('id', '=', sid)
                .executeTakeFirst();
              return Number(row?.last_sequence ?? 0) >= last;
            },
            { timeoutMs: 60_000, what: `Postgres to reach ${last} for ${sid}` },
          );
          // The high-water mark may pass a batch the failover made the worker redeliver
          // (writes commute, docs/decisions/0031): wait for every checkpoint the stream holds.
          const checkpoints = (followed.get(sid) ?? []).filter(
            (e) => e.type === 'checkpoint_created',
          ).length;
          const readEntries = () =>
            db
              .selectFrom('session_entries')
              .select(['sequence', 'event_id'])
              .where('session_id', '=', sid)
              .where('type', '=', 'runtime/workspace_checkpoint')
              .orderBy('sequence')
              .execute();
          await waitUntil(async () => (await readEntries()).length >= checkpoints, {
            timeoutMs: 60_000,
            what: `${checkpoints} checkpoint entries of ${sid}`,
          });
          const entries = await readEntries();
          const stored = entries.map((e) => Number(e.sequence));
          expect(new Set(stored).size).toBe(stored.length);
          // Every checkpoint the stream holds, and nothing else: a session the failover broke
          // was reopened, and its `session_resumed` is an event but no entry.
          const checkpointSeqs = (followed.get(sid) ?? [])
            .filter((e) => e.type === 'checkpoint_created')
            .map((e) => e.sequenceNumber);
          expect(stored).toEqual(checkpointSeqs);
          for (const s of ackedSeqs) expect(stored).toContain(s);

          // The projection applied every event up to the last, ending on the last checkpoint.
          await waitUntil(
            async () => {
              const row = await db
                .selectFrom('session_projections')
                .select('last_sequence')
                .where('session_id', '=', sid)
                .executeTakeFirst();
              return Number(row?.last_sequence ?? 0) >= last;
            },
            { timeoutMs: 60_000, what: `the projection to reach ${last} for ${sid}` },
          );
          const projected = await db
            .selectFrom('session_projections')
            .select(['last_sequence', 'projection'])
            .where('session_id', '=', sid)
            .executeTakeFirstOrThrow();
          expect(Number(projected.last_sequence)).toBe(last);
          const lastCheckpoint = (
            projected.projection as { lastCheckpoint?: { checkpointId: string } }
          ).lastCheckpoint?.checkpointId;
          const lastEvent = followed.get(sid)?.at(-1) as SessionEvent & {
            payload: { checkpointId: string };
          };
          expect(lastCheckpoint).toBe(lastEvent.payload.checkpointId);
        }
      } finally {
        await db.destroy();
      }

      // Leases: every session is still this runtime's, in the R3 bucket.
      const kv = await new Kvm(bus.nc).open(n.leaseBucket);
      for (const sid of sids) {
        const entry = await kv.get(sid);
        expect(entry?.json<{ owner: string }>().owner).toBe('rt-cluster');
        expect(runtime.host.residentEmitter(sid)).toBeDefined();
      }
      expect(warnings.filter((w) => w === 'lease lost')).toEqual([]);
      // Both consumers' processes lived through it.
      for (const s of services) expect(s.child.exitCode).toBeNull();
      for (const f of followers) await f.follower.stop();
      await Promise.all(followers.map((f) => f.done));
      console.error(
        `[cluster-failover] ${[...load.acked.values()].reduce((a, b) => a + b.length, 0)} acked, ` +
          `${load.failures} failed appends reopened, longest stall ${Math.round(load.longestStallMs())} ms`,
      );
    }, 400_000);
  },
);
