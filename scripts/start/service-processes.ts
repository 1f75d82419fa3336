import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

/** One agentwire service `npm start` runs as its own process. */
export interface Service {
  readonly name: string;
  readonly main: string;
  readonly env?: Record<string, string>;
}

/** A started service: its process and the port of its `/readyz`. */
export interface StartedService {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
}

/** Where the services' processes run and what they all get in their environment. */
export interface ServiceContext {
  readonly root: string;
  readonly logDir: string;
  readonly env: Readonly<Record<string, string>>;
}

const READY_TIMEOUT_MS = 30_000;

/**
 * Starts one service, its output appended to `<logDir>/<name>.log`, and resolves once its
 * `/readyz` answers 200; `children` gets the process at once, so a failed start is still
 * stopped.
 */
export async function startService(
  ctx: ServiceContext,
  service: Service,
  children: ChildProcess[],
): Promise<StartedService> {
  const logFile = path.join(ctx.logDir, `${service.name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [path.join(ctx.root, service.main)], {
    cwd: ctx.root,
    env: { ...process.env, ...ctx.env, HTTP_PORT: '0', ...service.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => reject(new Error(`${service.name} did not start in 30 s; see ${logFile}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /"port":(\d+)[^\n]*http listening/.exec(buffer);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${service.name} exited (${code}); see ${logFile}`));
    });
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return { name: service.name, child, port };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${service.name} not ready after 30 s; see ${logFile}`);
}

/** Runs `agentwire demo` with the terminal as its output; resolves with its exit code. */
export function runDemo(ctx: ServiceContext): Promise<number> {
  const cli = path.join(ctx.root, 'services/cli/src/main.ts');
  const child = spawn(process.execPath, [cli, 'demo'], {
    cwd: ctx.root,
    env: { ...process.env, ...ctx.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

/** SIGTERM to every child still running (each drains), resolved when all have exited. */
export async function stopChildren(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}
