import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A title sidecar running as its own process (tests and demos). */
export interface TitleSidecarProcess {
  readonly child: ChildProcess;
  /** Its HTTP port, once it logged `title sidecar serving`. */
  readonly port: number;
  /** Every log line so far (pino JSON on stdout, anything on stderr). */
  readonly lines: string[];
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
}

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Starts `services/title-sidecar/src/main.ts` with `env` over the current environment and
 * resolves once it serves requests; rejects when it exits first or is not serving in 30 s.
 */
export function spawnTitleSidecar(
  env: Readonly<Record<string, string>>,
): Promise<TitleSidecarProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`title sidecar not serving in 30 s:\n${lines.join('\n')}`)),
      30_000,
    );
    let port: number | undefined;
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.includes('title-sidecar http listening')) {
          port = (JSON.parse(line) as { port: number }).port;
        }
        if (line.includes('title sidecar serving') && port !== undefined) {
          clearTimeout(timer);
          resolve({ child, port, lines, exited });
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`title sidecar exited (${code}) before serving:\n${lines.join('\n')}`));
    });
  });
}
