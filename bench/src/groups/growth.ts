/**
 * Group `growth` (issue 18): one session of 100 turns, each reading a 60 KB file, through a
 * real runtime and persistence worker (processes):
 * - `growth.stream_bytes_per_turn_ratio`: the events stream's bytes added by turn 100 over
 *   those added by turn 10 (target <= 1.5: the stream grows linearly, not quadratically);
 * - `growth.model_request_bytes_p99`: the 99th percentile size of the session's
 *   `model_request` messages, payload plus headers (target <= 64 KiB: no request carries the
 *   whole history, docs/decisions/0161);
 * - `growth.largest_message_bytes`: the largest message on the session's subjects.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectBus, deleteProvisioned } from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import { createScratchDatabase, dropScratchDatabase } from '@agentwire/persistence-worker/testing';
import {
  bytesOfTurn,
  fileOfBytes,
  quantile,
  runLongSession,
  SERVICE_MAINS,
  WireDriver,
} from '@agentwire/runtime/testing';
import { startServiceProcess } from '@agentwire/testing';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const TURNS = 100;
const FILE_BYTES = 60 * 1024;

const log = (msg: string) => console.error(`[growth] ${msg}`);

export const growthGroup: BenchGroup = {
  name: 'growth',
  description: 'a 100-turn session reading a 60 KB file each turn: stream and request growth',
  async run(): Promise<readonly Figure[]> {
    const prefix = `awbg${randomBytes(4).toString('hex')}`;
    const dbName = `aw_bench_growth_${randomBytes(4).toString('hex')}`;
    const databaseUrl = await createScratchDatabase(ADMIN_URL, dbName);
    const workspace = await mkdtemp(path.join(tmpdir(), 'aw-bench-growth-'));
    await writeFile(path.join(workspace, 'README.md'), fileOfBytes(FILE_BYTES));
    const common = { NATS_URL, DATABASE_URL: databaseUrl, AW_PREFIX: prefix, HTTP_PORT: '0' };
    const worker = await startServiceProcess(SERVICE_MAINS.persistenceWorker, common, {
      readyWhen: 'persistence-worker started',
    });
    const runtime = await startServiceProcess(
      SERVICE_MAINS.runtime,
      // The broker's growth with the whole history kept: no automatic compaction (0229).
      { ...common, AW_WORKSPACE_ROOT: workspace, AW_COMPACT_AT: 'off' },
      { readyWhen: 'runtime accepting' },
    ).catch(async (err: unknown) => {
      worker.kill('SIGKILL');
      throw err;
    });
    const names = namesOf(prefix);
    const bus = await connectBus({ servers: NATS_URL, name: 'bench-growth' });
    try {
      const client = new WireDriver(bus, names);
      const opened = await client.open();
      if (!opened.ok) throw new Error(opened.error.message);
      const sessionId = String(opened.sessionId);
      const run = await runLongSession({
        bus,
        names,
        client,
        sessionId,
        turns: TURNS,
        prompt: (n) => `[scenario:read_readme] turn ${n}`,
        onTurn: (n) => {
          if (n % 25 === 0) log(`turn ${n} done`);
        },
      });
      const requests = run.wire.filter((m) => m.type === 'model_request').map((m) => m.bytes);
      const at10 = bytesOfTurn(run, 10);
      const at100 = bytesOfTurn(run, TURNS);
      const largest = Math.max(...run.wire.map((m) => m.bytes));
      log(`turn 10 added ${at10} bytes, turn ${TURNS} ${at100}; ${requests.length} requests`);
      return [
        { name: 'growth.stream_bytes_per_turn_ratio', value: at100 / at10, unit: 'ratio' },
        { name: 'growth.model_request_bytes_p99', value: quantile(requests, 0.99), unit: 'bytes' },
        { name: 'growth.largest_message_bytes', value: largest, unit: 'bytes' },
        {
          name: 'growth.stream_bytes_total',
          value: run.streamBytes.at(-1) ?? Number.NaN,
          unit: 'bytes',
        },
      ];
    } finally {
      runtime.kill('SIGTERM');
      await runtime.exited;
      worker.kill('SIGTERM');
      await worker.exited;
      await deleteProvisioned(bus.jsm, names).catch(() => {});
      await bus.close();
      await dropScratchDatabase(ADMIN_URL, dbName);
      await rm(workspace, { recursive: true, force: true });
    }
  },
};
