import { type ChildProcess, spawn } from 'node:child_process';

/** A service started as its own process, with its log lines kept for assertions. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The HTTP port from its `<name> http listening` log line, once logged. */
  readonly port: number | undefined;
  /** Every log line so far (pino JSON on stdout, anything on stderr). */
  readonly lines: string[];
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): void;
}

/** Options of {@link startServiceProcess}. */
export interface StartServiceOptions {
  /**
   * Ready once a log line contains this text. Absent: once the `<name> http listening` line
   * gave the port and `GET /readyz` on it answers 200.
   */
  readonly readyWhen?: string;
  /** Rejects when not ready within this many ms (default 90 s: start-up on a saturated machine). */
  readonly timeoutMs?: number;
}

const LISTENING = 'http listening';

/**
 * Starts `node <main>` with `env` over the current environment (`LOG_LEVEL=info` unless
 * set) and resolves once it is ready (see {@link StartServiceOptions.readyWhen}); rejects
 * when it exits first or is not ready in time, with its log so far.
 */
export async function startServiceProcess(
  main: string,
  env: Readonly<Record<string, string>>,
  options: StartServiceOptions = {},
): Promise<ServiceProcess> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let port: number | undefined;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  const proc: ServiceProcess = {
    child,
    pid: child.pid ?? -1,
    get port() {
      return port;
    },
    lines,
    exited,
    kill: (signal) => child.kill(signal),
  };
  let timer: NodeJS.Timeout | undefined;
  const logged = new Promise<void>((resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${main} not ready in ${timeoutMs} ms:\n${lines.join('\n')}`)),
      timeoutMs,
    );
    const onLine = (line: string) => {
      lines.push(line);
      if (port === undefined && line.includes(LISTENING)) port = portOf(line);
      const ready =
        options.readyWhen === undefined ? port !== undefined : line.includes(options.readyWhen);
      if (ready) resolve();
    };
    readLines(child.stdout, onLine);
    readLines(child.stderr, onLine);
    void exited.then((code) =>
      reject(new Error(`${main} exited (${code}) before ready:\n${lines.join('\n')}`)),
    );
  });
  try {
    await logged;
    if (options.readyWhen === undefined) await untilReady(proc, timeoutMs);
    return proc;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function readLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  let buffer = '';
  stream?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) onLine(line);
  });
}

function portOf(line: string): number | undefined {
  try {
    const port = (JSON.parse(line) as { port?: unknown }).port;
    return typeof port === 'number' ? port : undefined;
  } catch {
    return undefined;
  }
}

async function untilReady(proc: ServiceProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${proc.port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return;
    if (Date.now() > deadline) {
      throw new Error(`not ready (/readyz) in ${timeoutMs} ms:\n${proc.lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
