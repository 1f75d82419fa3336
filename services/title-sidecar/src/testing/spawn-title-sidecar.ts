import { fileURLToPath } from 'node:url';
import { type ServiceProcess, startServiceProcess } from '@agentwire/testing';

/** A title sidecar running as its own process (tests and demos). */
export interface TitleSidecarProcess extends ServiceProcess {
  /** Its HTTP port, from its `title-sidecar http listening` line. */
  readonly port: number;
}

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Starts `services/title-sidecar/src/main.ts` with `env` over the current environment and
 * resolves once it serves requests (`title sidecar serving`); rejects when it exits first or
 * is not serving in 30 s.
 */
export async function spawnTitleSidecar(
  env: Readonly<Record<string, string>>,
): Promise<TitleSidecarProcess> {
  const proc = await startServiceProcess(
    MAIN,
    { HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', ...env },
    { readyWhen: 'title sidecar serving' },
  );
  const { port } = proc;
  if (port === undefined) {
    proc.kill('SIGKILL');
    throw new Error(`title sidecar logged no port:\n${proc.lines.join('\n')}`);
  }
  return { ...proc, port };
}
