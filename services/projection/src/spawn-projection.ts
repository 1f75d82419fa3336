import { fileURLToPath } from 'node:url';
import { type ServiceProcess, startServiceProcess } from '@agentwire/testing';

/** A projection instance running as its own process (tests and benches). */
export interface ProjectionProcess extends ServiceProcess {
  /** Its HTTP port, from its `projection http listening` line. */
  readonly port: number;
}

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/**
 * Starts `services/projection/src/main.ts` with `env` on top of the current environment
 * (`HTTP_PORT=0` unless given) through `startServiceProcess`, and resolves once it listens;
 * rejects when it exits first or does not listen within 30 s.
 */
export async function spawnProjection(
  env: Readonly<Record<string, string>>,
): Promise<ProjectionProcess> {
  const proc = await startServiceProcess(
    MAIN,
    { HTTP_PORT: '0', ...env },
    { readyWhen: 'projection http listening' },
  );
  const port = proc.port;
  if (port === undefined)
    throw new Error(`projection listened without a port:\n${proc.lines.join('\n')}`);
  return {
    child: proc.child,
    pid: proc.pid,
    port,
    lines: proc.lines,
    exited: proc.exited,
    kill: (signal) => proc.kill(signal),
  };
}
