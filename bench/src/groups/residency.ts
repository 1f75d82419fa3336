import type { startRuntime } from '@agentwire/runtime';
import { startBenchRuntime } from '../bench-runtime.ts';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { median } from '../stats.ts';
import {
  COLD_MESSAGES,
  COLD_PARTS,
  coldOpen,
  removeTranscript,
  seedTranscript,
} from './cold-open.ts';

const MESSAGES = 1_000;
const PARTS = 5_000;
const ROUNDS = 5;

const log = (msg: string) => console.error(`[residency] ${msg}`);
export const residencyGroup: BenchGroup = {
  name: 'residency',
  description: 'a reclaimed session of 1,000 messages prompted again, beside the cold open',
  async run(): Promise<readonly Figure[]> {
    const bench = await startBenchRuntime('residency');
    const { runtime, bus, db, prefix } = bench;
    const sid = await seedTranscript(db, MESSAGES, PARTS);
    const prompt = async (round: number) => {
      const started = performance.now();
      const reply = await bus.nc.request(
        `${prefix}.rt.${sid}.prompt`,
        JSON.stringify({ text: `round ${round}` }),
        { timeout: 30_000 },
      );
      const elapsed = performance.now() - started;
      if (reply.json<{ ok: boolean }>().ok !== true) throw new Error(reply.string());
      return elapsed;
    };
    try {
      await runtime.host.activate(sid, 'op');
      const reopened: number[] = [];
      const resident: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        await waitIdle(runtime, sid);
        resident.push(await prompt(round * 2));
        await waitIdle(runtime, sid);
        await runtime.host.deactivate(sid); // reclaimed, as the pool does
        reopened.push(await prompt(round * 2 + 1));
      }
      await waitIdle(runtime, sid);
      log(`reopen ${reopened.map((t) => t.toFixed(0)).join(', ')} ms`);
      log(`resident ${resident.map((t) => t.toFixed(0)).join(', ')} ms`);
      const cold = await coldOpen(runtime, db, COLD_MESSAGES, COLD_PARTS);
      log(`cold open of ${COLD_MESSAGES} messages: ${cold.ms.toFixed(0)} ms`);
      return [
        {
          name: 'residency.reopen_ms',
          value: median(reopened),
          unit: 'ms',
          baseline: median(resident),
        },
        { name: 'runtime.cold_open_ms', value: cold.ms, unit: 'ms', baseline: cold.rawMs },
      ];
    } finally {
      await bench.stop(() => removeTranscript(db, sid));
    }
  },
};

/** Waits until the session runs no turn (the prompt's turn ran to its end). */
async function waitIdle(
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  sid: string,
): Promise<void> {
  for (;;) {
    const session = runtime.host.resident(sid);
    if (session === undefined || session.activeTurnId === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
