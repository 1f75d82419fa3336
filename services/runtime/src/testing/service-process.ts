import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Entry points of the service processes the end-to-end tests start. */
export const SERVICE_MAINS = {
  runtime: path.join(repoRoot, 'services/runtime/src/main.ts'),
  persistenceWorker: path.join(repoRoot, 'services/persistence-worker/src/main.ts'),
  titleSidecar: path.join(repoRoot, 'services/title-sidecar/src/main.ts'),
} as const;

/** A service started as its own process, with its log lines kept for assertions. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly lines: string[];
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts `node <main>` with `env` on top of the current environment and resolves once a
 * log line contains `readyText` (rejects when the process exits first or after 20 s).
 */
export function startServiceProcess(
  main: string,
  env: Record<string, string>,
  readyText: string,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${main} not ready in 20 s:\n${lines.join('\n')}`)),
      20_000,
    );
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.includes(readyText)) {
          clearTimeout(timer);
          resolve({ child, pid: child.pid ?? -1, lines, exited, kill: (s) => child.kill(s) });
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${main} exited (${code}) before ready:\n${lines.join('\n')}`));
    });
  });
}
