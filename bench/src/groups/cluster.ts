/**
 * Group `cluster` (issue 15): the runtime's appends on a three-node JetStream cluster (R3)
 * against one server (R1), in paired rounds of the same run, and the longest pause in
 * acknowledged appends while the node leading the events stream is SIGKILLed and brought
 * back. Starts its own `nats-server` processes (`@agentwire/testing/nats`), uses
 * `DATABASE_URL` (default the local server) with a prefix of its own, and removes what it
 * created.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { names } from '@agentwire/contracts';
import { RuntimeConfig, type StartedRuntime, startRuntime } from '@agentwire/runtime';
import { startAppendLoad } from '@agentwire/runtime/testing';
import { createDatabase, migrate } from '@agentwire/store';
import { noopLogger } from '@agentwire/telemetry';
import {
  type NatsCluster,
  type NatsServerProcess,
  natsServerSupport,
  startNatsCluster,
  startNatsServer,
} from '@agentwire/testing/nats';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { median } from '../stats.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SESSIONS = 20;
/** Acknowledged appends per session in one rate round. */
const PER_SESSION = 150;
/** Acknowledged appends per session before the kill, while the node is down, after it. */
const FAILOVER_STEP = 30;
const ROUNDS = 3;

const log = (msg: string) => console.error(`[cluster] ${msg}`);

/** Polls `check` every 50 ms; the bench has no test runner's waitUntil budget to respect. */
async function until(check: () => boolean, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Acknowledged appends per second over 20 fresh sessions, `PER_SESSION` each. */
async function appendRate(runtime: StartedRuntime, tag: string): Promise<number> {
  const sids = Array.from({ length: SESSIONS }, (_, i) => `${tag}-${i}`);
  const started = performance.now();
  const load = startAppendLoad(runtime.host, sids);
  await until(() => load.minAcked() >= PER_SESSION, `${tag} appends`);
  await load.stop();
  const seconds = (performance.now() - started) / 1000;
  const total = [...load.acked.values()].reduce((sum, a) => sum + a.length, 0);
  for (const sid of sids) await runtime.host.deactivate(sid);
  return total / seconds;
}

/** The longest pause in acknowledged appends across a SIGKILL of the events leader. */
async function failoverStall(runtime: StartedRuntime, cluster: NatsCluster, stream: string) {
  const sids = Array.from({ length: SESSIONS }, (_, i) => `failover-${i}`);
  const load = startAppendLoad(runtime.host, sids);
  await until(() => load.minAcked() >= FAILOVER_STEP, 'appends before the kill');
  const { leader } = await cluster.waitForStream(stream);
  if (!leader) throw new Error(`${stream} has no leader`);
  const atKill = load.minAcked();
  await leader.kill();
  await until(() => load.minAcked() >= atKill + FAILOVER_STEP, 'appends with the leader dead');
  await leader.start();
  await cluster.waitForStream(stream, 60_000);
  const back = load.minAcked();
  await until(() => load.minAcked() >= back + FAILOVER_STEP, 'appends with the node back');
  await load.stop();
  log(`failover: ${load.failures} appends failed and their sessions reopened`);
  return load.longestStallMs();
}

async function runtimeOn(natsUrl: string, replicas: number, prefix: string, workspace: string) {
  const config = RuntimeConfig.parse({
    NATS_URL: natsUrl,
    DATABASE_URL,
    AW_PREFIX: prefix,
    AW_WORKSPACE_ROOT: workspace,
    AW_REPLICAS: String(replicas),
  });
  return startRuntime(config, noopLogger, { recordUsage: () => {} });
}

export const clusterGroup: BenchGroup = {
  name: 'cluster',
  description: 'appends on an R3 cluster over one R1 server, stall while the events leader dies',
  async run(): Promise<Figure[]> {
    const support = natsServerSupport();
    if (!support.ok) throw new Error(`cannot run: ${support.reason}`);
    const prefix = `awbench${randomBytes(4).toString('hex')}`;
    const workspace = await mkdtemp(path.join(tmpdir(), 'aw-bench-cluster-'));
    const db = createDatabase(DATABASE_URL, { poolSize: 1 });
    await migrate(db);
    let single: NatsServerProcess | undefined;
    let cluster: NatsCluster | undefined;
    const runtimes: StartedRuntime[] = [];
    try {
      [single, cluster] = await Promise.all([startNatsServer(), startNatsCluster()]);
      const r1 = await runtimeOn(single.url, 1, prefix, workspace);
      runtimes.push(r1);
      const r3 = await runtimeOn(cluster.urls.join(','), 3, prefix, workspace);
      runtimes.push(r3);
      const r1Rates: number[] = [];
      const r3Rates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        r1Rates.push(await appendRate(r1, `r1-${round}`));
        r3Rates.push(await appendRate(r3, `r3-${round}`));
        log(
          `round ${round}: R1 ${r1Rates.at(-1)?.toFixed(0)}/s, R3 ${r3Rates.at(-1)?.toFixed(0)}/s`,
        );
      }
      const ratios = r3Rates.map((r3, i) => r3 / (r1Rates[i] ?? Number.NaN));
      const stall = await failoverStall(r3, cluster, names(prefix).eventsStream);
      return [
        { name: 'cluster.failover_stall_ms', value: stall, unit: 'ms' },
        { name: 'cluster.r1_append_events_per_s', value: median(r1Rates), unit: 'events/s' },
        { name: 'cluster.r3_append_events_per_s', value: median(r3Rates), unit: 'events/s' },
        { name: 'cluster.append_ratio', value: median(ratios), unit: 'ratio' },
      ];
    } finally {
      for (const runtime of runtimes) await runtime.stop().catch(() => undefined);
      await Promise.allSettled([single?.dispose(), cluster?.dispose()]);
      await db.destroy();
      await rm(workspace, { recursive: true, force: true });
    }
  },
};
