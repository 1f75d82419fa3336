import { randomBytes } from 'node:crypto';
import { followSession, RuntimeClient } from '@agentwire/bus';
import { names, type SessionEvent } from '@agentwire/contracts';
import { startWorkerRuntime, WorkerConfig } from '@agentwire/persistence-worker';
import { sql } from 'kysely';
import { startBenchRuntime } from '../bench-runtime.ts';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { percentile } from '../stats.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SESSIONS = 4;
const SAMPLES = 500;
const WARM_UP = 20;

const log = (msg: string) => console.error(`[admission] ${msg}`);

/** Resolves when a follower of one session has seen an event that `match` accepts. */
function watcher() {
  const seen: SessionEvent[] = [];
  const waiters: { match: (e: SessionEvent) => boolean; resolve: (at: number) => void }[] = [];
  return {
    add(event: SessionEvent) {
      seen.push(event);
      const at = performance.now();
      for (let i = waiters.length - 1; i >= 0; i -= 1) {
        const w = waiters[i];
        if (w?.match(event)) {
          waiters.splice(i, 1);
          w.resolve(at);
        }
      }
    },
    wait(match: (e: SessionEvent) => boolean): Promise<number> {
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/**
 * Group `admission` (issue 11, R12.4): a prompt's way in, on an in-process runtime and an
 * in-process persistence worker over the local NATS and Postgres.
 * - `admission.accepted_p99_ms`: from the `prompt` request to its `accepted` reply;
 * - `admission.delivered_p99_ms`: from the request to `session_input_promoted` on the
 *   session's stream, which the runtime emits once the worker confirmed the commit of the
 *   user message and its ledger promotion (flow 1);
 * - their baseline, measured in the same run and interleaved sample for sample: one NATS
 *   request/reply to a bare responder plus one Postgres commit of one row;
 * - `admission.delivered_ratio` is the delivered figure over that baseline.
 * Each sample prompts an idle, already persisted session (its row's birth is not part of
 * admission), then waits for its turn to end before the session's next sample.
 */
export const admissionGroup: BenchGroup = {
  name: 'admission',
  description:
    'prompt accepted and delivered (worker-confirmed commit) against a raw request plus commit',
  async run(): Promise<readonly Figure[]> {
    const bench = await startBenchRuntime('admission');
    const n = names(bench.prefix);
    const worker = await startWorkerRuntime({
      config: WorkerConfig.parse({
        DATABASE_URL: bench.databaseUrl,
        NATS_URL,
        AW_PREFIX: bench.prefix,
      }),
    });
    const client = new RuntimeClient(bench.bus, n);
    const table = `bench_admission_${randomBytes(3).toString('hex')}`;
    await sql`create table ${sql.raw(table)} (id text primary key, body jsonb not null)`.execute(
      bench.db,
    );
    const echo = bench.bus.nc.subscribe(`${bench.prefix}.bench.echo`, {
      callback: (_err, msg) => {
        msg.respond(msg.data);
      },
    });
    const sessions: { sid: string; seen: ReturnType<typeof watcher>; stop: () => Promise<void> }[] =
      [];
    try {
      for (let s = 0; s < SESSIONS; s += 1) {
        const opened = await client.open();
        if (!opened.ok) throw new Error(opened.error.message);
        const sid = opened.sessionId;
        const seen = watcher();
        const follower = followSession(bench.bus.js, n, sid, { afterSequence: 0 });
        const following = (async () => {
          for await (const e of follower) seen.add(e);
        })();
        sessions.push({ sid, seen, stop: () => follower.stop().then(() => following) });
        // The first turn gives birth to the row: not part of what is measured.
        const first = await client.prompt(
          sid,
          { text: 'warm up', wait: true },
          { timeoutMs: 30_000 },
        );
        if (!first.ok) throw new Error(first.error.message);
      }
      const accepted: number[] = [];
      const delivered: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < SAMPLES + WARM_UP; i += 1) {
        const session = sessions[i % SESSIONS];
        if (session === undefined) throw new Error('no session');
        const inputId = `in_bench_${i}_${randomBytes(3).toString('hex')}`;
        const promoted = session.seen.wait(
          (e) =>
            e.type === 'session_input_promoted' &&
            (e.payload as { pendingInputId: string }).pendingInputId === inputId,
        );
        const ended = session.seen.wait(
          (e) => e.type === 'turn_complete' && e.payload.inputId === inputId,
        );
        const started = performance.now();
        const reply = await client.prompt(session.sid, { text: `sample ${i}`, inputId });
        const acceptedAt = performance.now();
        if (!reply.ok) throw new Error(`prompt ${i}: ${reply.error.message}`);
        const deliveredAt = await promoted;
        await ended;
        // The raw path right after, on the same machine state.
        const rawStarted = performance.now();
        await bench.bus.nc.request(
          `${bench.prefix}.bench.echo`,
          JSON.stringify({ text: `sample ${i}`, inputId }),
        );
        await bench.db.transaction().execute(async (tx) => {
          await sql`insert into ${sql.raw(table)} (id, body) values (${inputId}, ${JSON.stringify({ text: `sample ${i}` })}::jsonb)`.execute(
            tx,
          );
        });
        const rawMs = performance.now() - rawStarted;
        if (i < WARM_UP) continue;
        accepted.push(acceptedAt - started);
        delivered.push(deliveredAt - started);
        raw.push(rawMs);
      }
      for (const list of [accepted, delivered, raw]) list.sort((a, b) => a - b);
      const baseline = percentile(raw, 99);
      log(
        `accepted p50 ${percentile(accepted, 50).toFixed(2)} ms, delivered p50 ${percentile(delivered, 50).toFixed(2)} ms, raw p50 ${percentile(raw, 50).toFixed(2)} ms`,
      );
      return [
        {
          name: 'admission.accepted_p99_ms',
          value: percentile(accepted, 99),
          unit: 'ms',
          baseline,
        },
        {
          name: 'admission.delivered_p99_ms',
          value: percentile(delivered, 99),
          unit: 'ms',
          baseline,
        },
        { name: 'admission.delivered_p50_ms', value: percentile(delivered, 50), unit: 'ms' },
        { name: 'admission.raw_p99_ms', value: baseline, unit: 'ms' },
        {
          name: 'admission.delivered_ratio',
          value: percentile(delivered, 99) / baseline,
          unit: 'ratio',
        },
      ];
    } finally {
      for (const s of sessions) await s.stop().catch(() => undefined);
      echo.unsubscribe();
      await worker.stop();
      await bench.stop(async () => {
        await sql`drop table if exists ${sql.raw(table)}`.execute(bench.db);
      });
    }
  },
};
