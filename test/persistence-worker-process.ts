/** Spawning real persistence-worker processes for the e2e suites (`persistence*.e2e.test.ts`). */
import { fileURLToPath } from 'node:url';
import { type ServiceProcess, startServiceProcess } from '@agentwire/testing';

const MAIN = fileURLToPath(new URL('../services/persistence-worker/src/main.ts', import.meta.url));

/** A running worker process, ready (`/readyz` answered 200). */
export interface WorkerProcess extends ServiceProcess {
  /** Its HTTP port, from its `persistence-worker http listening` line. */
  readonly port: number;
}

/**
 * Starts `node services/persistence-worker/src/main.ts` with `env` added to this process's
 * environment (`HTTP_PORT=0` unless given) through `startServiceProcess`: resolves once it
 * logged its port and `/readyz` answers 200.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<WorkerProcess> {
  const proc = await startServiceProcess(MAIN, { HTTP_PORT: '0', ...env }, { timeoutMs });
  const port = proc.port;
  if (port === undefined) throw new Error(`worker ready without a port:\n${proc.lines.join('\n')}`);
  return {
    child: proc.child,
    pid: proc.pid,
    port,
    lines: proc.lines,
    exited: proc.exited,
    kill: (signal) => proc.kill(signal),
  };
}
