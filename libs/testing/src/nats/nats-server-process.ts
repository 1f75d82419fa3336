import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNatsServer } from './find-nats-server.ts';
import { freePort } from './free-port.ts';

const READY = 'Server is ready';
const KEPT_LINES = 500;

/** The cluster flags of one node (`--cluster_name`, `--cluster`, `--routes`). */
export interface NatsClusterMembership {
  /** Shared by every node of the cluster. */
  readonly name: string;
  /** This node's route port on 127.0.0.1. */
  readonly port: number;
  /** Every node's route URL (`nats://127.0.0.1:<port>`), this one included. */
  readonly routes: readonly string[];
}

/** Options of {@link startNatsServer}; every field has a default. */
export interface NatsServerOptions {
  /** Client port on 127.0.0.1 (default: a free one). Kept across restarts. */
  readonly port?: number;
  /**
   * JetStream store directory (`-sd`). Default: a fresh temporary directory that
   * `dispose()` removes; a directory given here is left in place.
   */
  readonly storeDir?: string;
  /** `--server_name` (default `aw-nats-<random>`): how the cluster and stream info name it. */
  readonly serverName?: string;
  readonly cluster?: NatsClusterMembership;
  /** A configuration file (`-c`), e.g. users and permissions; flags above override it. */
  readonly configFile?: string;
  /** More command-line arguments, appended last. */
  readonly args?: readonly string[];
  /** The binary (default {@link findNatsServer}). */
  readonly binary?: string;
  /** How long a start may take before it fails with the server's log (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * Its own process group, so that a terminal's Ctrl-C (SIGINT to the foreground group)
   * does not reach it and its owner decides when it stops (default false: tests want it
   * to die with the run).
   */
  readonly detached?: boolean;
  /** Called with every log line (stderr), e.g. to write a log file. */
  readonly onLine?: (line: string) => void;
}

/** A `nats-server` process of a test's own, with the controls a crash test needs. */
export interface NatsServerProcess {
  /** `nats://127.0.0.1:<port>`, the same after every restart. */
  readonly url: string;
  readonly port: number;
  readonly serverName: string;
  readonly storeDir: string;
  /** The current process id, undefined while stopped. */
  readonly pid: number | undefined;
  readonly state: 'running' | 'paused' | 'stopped';
  /** The server's last log lines (stderr), for failure messages. */
  readonly lines: readonly string[];
  /** Starts it again after `stop()` or `kill()`: same port, store and name. */
  start(): Promise<void>;
  /** SIGTERM (a clean shutdown); resolves when the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL (a crash: nothing flushed); resolves when the process has exited. */
  kill(): Promise<void>;
  /** `stop()` then `start()`. */
  restart(): Promise<void>;
  /** SIGSTOP: the server freezes with its sockets open (a hung node, not a dead one). */
  pause(): void;
  /** SIGCONT after {@link pause}. */
  resume(): void;
  /** Kills the process and removes a temporary store directory. */
  dispose(): Promise<void>;
}

function argsOf(
  o: Required<Pick<NatsServerOptions, 'port' | 'storeDir' | 'serverName'>> & NatsServerOptions,
): string[] {
  const args = ['-a', '127.0.0.1', '-p', String(o.port), '-js', '-sd', o.storeDir];
  args.push('--server_name', o.serverName);
  if (o.configFile) args.unshift('-c', o.configFile);
  if (o.cluster) {
    args.push('--cluster_name', o.cluster.name, '--cluster', `nats://127.0.0.1:${o.cluster.port}`);
    args.push('--routes', o.cluster.routes.join(','));
  }
  return [...args, ...(o.args ?? [])];
}

/**
 * Starts a dedicated `nats-server` with JetStream on 127.0.0.1 and resolves once it logs
 * that it is ready: for broker restarts, crashes and clusters that must not touch the
 * run's shared server (docs/decisions/0140). The process is killed if the test process
 * exits without disposing it.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerProcess> {
  const binary = options.binary ?? findNatsServer();
  if (!binary) throw new Error('no nats-server binary found (PATH, /usr/sbin/nats-server)');
  const port = options.port ?? (await freePort());
  const tempStore = options.storeDir === undefined;
  const storeDir = options.storeDir ?? (await mkdtemp(join(tmpdir(), 'agentwire-nats-')));
  const serverName = options.serverName ?? `aw-nats-${randomBytes(3).toString('hex')}`;
  const args = argsOf({ ...options, port, storeDir, serverName });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const lines: string[] = [];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let paused = false;

  const killOnExit = () => child?.kill('SIGKILL');
  async function start(): Promise<void> {
    if (child) throw new Error(`nats-server ${serverName} is already running`);
    const proc = spawn(binary as string, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: options.detached ?? false,
    });
    child = proc;
    paused = false;
    process.once('exit', killOnExit);
    exited = new Promise((resolve) =>
      proc.once('exit', () => {
        process.removeListener('exit', killOnExit);
        if (child === proc) child = undefined;
        resolve();
      }),
    );
    await untilReady(
      proc,
      lines,
      timeoutMs,
      `nats-server ${serverName} on ${port}`,
      options.onLine,
    );
  }
  async function signal(sig: NodeJS.Signals): Promise<void> {
    if (!child) return;
    if (paused && sig !== 'SIGKILL') child.kill('SIGCONT');
    paused = false;
    child.kill(sig);
    await exited;
  }
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    serverName,
    storeDir,
    get pid() {
      return child?.pid;
    },
    get state() {
      return child ? (paused ? 'paused' : 'running') : 'stopped';
    },
    lines,
    start,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    async restart() {
      await signal('SIGTERM');
      await start();
    },
    pause() {
      if (!child) throw new Error(`nats-server ${serverName} is not running`);
      child.kill('SIGSTOP');
      paused = true;
    },
    resume() {
      if (!child) throw new Error(`nats-server ${serverName} is not running`);
      child.kill('SIGCONT');
      paused = false;
    },
    async dispose() {
      await signal('SIGKILL');
      if (tempStore) await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/** Collects stderr lines and resolves on the ready line; rejects on exit or timeout. */
function untilReady(
  proc: ChildProcess,
  lines: string[],
  timeoutMs: number,
  what: string,
  onLine: ((line: string) => void) | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let ready = false;
    const fail = (why: string) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${what} ${why}:\n${lines.slice(-40).join('\n')}`));
    };
    const timer = setTimeout(() => {
      fail(`not ready in ${timeoutMs} ms`);
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.once('error', (error) => fail(`failed to start (${error.message})`));
    proc.once('exit', (code, sig) => fail(`exited (${code ?? sig}) before it was ready`));
    proc.stderr?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        onLine?.(line);
        if (lines.length > KEPT_LINES) lines.shift();
        if (!ready && line.includes(READY)) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      }
    });
  });
}
