import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A projection instance running as its own process (tests and benches). */
export interface ProjectionProcess {
  readonly child: ChildProcess;
  /** Its HTTP port, once it logged `projection http listening`. */
  readonly port: number;
  /** Every log line so far (pino JSON on stdout, anything on stderr). */
  readonly lines: string[];
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
}

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/**
 * Starts `services/projection/src/main.ts` with `env` on top of the current environment and
 * resolves once it listens; rejects when it exits first or does not listen within 30 s.
 */
export function spawnProjection(env: Readonly<Record<string, string>>): Promise<ProjectionProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`projection did not listen in 30 s:\n${lines.join('\n')}`)),
      30_000,
    );
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.includes('projection http listening')) {
          const port = (JSON.parse(line) as { port: number }).port;
          clearTimeout(timer);
          resolve({ child, port, lines, exited });
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`projection exited (${code}) before listening:\n${lines.join('\n')}`));
    });
  });
}
