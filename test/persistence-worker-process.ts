/** Spawning real persistence-worker processes for the e2e suites (`persistence*.e2e.test.ts`). */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../services/persistence-worker/src/main.ts', import.meta.url));

/** A running worker process. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Every stdout line so far (pino JSON). */
  readonly lines: string[];
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
}

/**
 * Starts `node services/persistence-worker/src/main.ts` with `env` added to this process's
 * environment, waits for its "http listening" line (the bound port) and for /readyz 200.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = once(child, 'exit').then(
    ([code, signal]) => (code ?? signal) as number | NodeJS.Signals | null,
  );
  let buffer = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker not listening after ${timeoutMs} ms:\n${lines.join('\n')}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        const match = /"port":(\d+).*http listening|http listening.*"port":(\d+)/.exec(line);
        if (match !== null) {
          clearTimeout(timer);
          resolve(Number(match[1] ?? match[2]));
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    void exited.then((code) =>
      reject(new Error(`worker exited (${code}) before listening:\n${lines.join('\n')}`)),
    );
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return { child, port, lines, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`worker not ready after ${timeoutMs} ms:\n${lines.join('\n')}`);
}
