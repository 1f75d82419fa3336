import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, natsServerSupport, waitUntil } from '@agentwire/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface StartRun {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** npm's exit code (or signal), once every process holding its output (start.ts) ended. */
  readonly exited: Promise<number | string | null>;
}

let stateDir: string;
let bareEnv: NodeJS.ProcessEnv;

/**
 * `npm start -- <args>` on a "bare machine": NATS_URL and DATABASE_URL unset, and the
 * default addresses pointed at ports where nothing listens (the machine's own servers keep
 * running). In its own process group, so that a SIGINT to the group is a terminal's Ctrl-C.
 */
function npmStart(args: string[], env: NodeJS.ProcessEnv = bareEnv): StartRun {
  const child = spawn('npm', ['start', '--', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal)),
  );
  return { child, output: () => output, exited };
}

function pidsOf(output: string): number[] {
  return [...output.matchAll(/\(pid (\d+),/g)].map((m) => Number(m[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function earlierSessions(output: string): number {
  const match = /^(\d+) sessions from earlier runs$/m.exec(output);
  if (!match) throw new Error(`no session count in:\n${output}`);
  return Number(match[1]);
}

const support = natsServerSupport();

describe.skipIf(!support.ok)('npm start on a machine without NATS or Postgres', () => {
  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'agentwire-start-'));
    await chmod(stateDir, 0o755); // as root, Postgres runs as `postgres`, which must reach it
    const [natsPort, pgPort] = [await freePort(), await freePort()];
    const { NATS_URL: _n, DATABASE_URL: _d, ...rest } = process.env;
    bareEnv = {
      ...rest,
      AW_STATE_DIR: stateDir,
      AW_DEFAULT_NATS_URL: `nats://127.0.0.1:${natsPort}`,
      AW_DEFAULT_DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/agentwire`,
      HTTP_PORT: '0',
    };
  });
  afterAll(async () => {
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('starts its own servers, keeps their data for the next run, stops what it started', async () => {
    const first = npmStart(['--demo-only']);
    expect(await first.exited, first.output()).toBe(0);
    const out1 = first.output();
    expect(out1).toMatch(/NATS started here \(pid \d+, nats:\/\/127\.0\.0\.1:\d+/);
    expect(out1).toMatch(/embedded Postgres started here \(pid \d+, 127\.0\.0\.1:\d+/);
    expect(earlierSessions(out1)).toBe(0);
    const sid = /^session (\S+)$/m.exec(out1)?.[1];
    const printed = /^projection \(asOfSeq (\d+)\):\n([\s\S]*)$/m.exec(out1);
    expect(sid && printed).toBeTruthy();
    // --demo-only stopped everything it started: 6 services, its NATS and its Postgres.
    expect(pidsOf(out1)).toHaveLength(8);
    await waitUntil(() => pidsOf(out1).every((pid) => !alive(pid)), { what: 'run 1 stopped' });

    // Second run, left running: it reuses both data directories.
    const second = npmStart([]);
    // The whole banner: its lines may arrive in more than one chunk.
    await waitUntil(() => second.output().includes('Ctrl-C stops every service'), {
      timeoutMs: 120_000,
      what: `the second run to be up:\n${second.output()}`,
    });
    const out2 = second.output();
    expect(earlierSessions(out2)).toBe(1);
    const gateway = /Gateway: (http:\/\/127\.0\.0\.1:\d+)/.exec(out2)?.[1];
    // It built the web client (or found it built), serves it at / and says where.
    expect(out2).toContain(`open the web client: ${gateway}/`);
    const page = await fetch(`${gateway}/`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<div id="app"></div>');
    const res = await fetch(`${gateway}/sessions/${sid}/projection`);
    expect(res.status).toBe(200);
    const found = (await res.json()) as { asOfSeq: number; projection: unknown };
    expect(found.asOfSeq).toBe(Number(printed?.[1]));
    expect(found.projection).toEqual(JSON.parse(printed?.[2] ?? 'null'));
    // The read side came back too: the first run's session is listed, with its history.
    const listed = (await (await fetch(`${gateway}/sessions?limit=10`)).json()) as {
      sessions: { id: string }[];
    };
    expect(listed.sessions.map((s) => s.id)).toContain(sid);
    const history = await fetch(`${gateway}/sessions/${sid}/history`);
    expect(history.status).toBe(200);
    expect(((await history.json()) as { messages: unknown[] }).messages.length).toBeGreaterThan(0);

    // Ctrl-C (SIGINT to the process group) stops exactly what this run started.
    process.kill(-(second.child.pid as number), 'SIGINT');
    expect([130, 'SIGINT']).toContain(await second.exited); // npm itself dies of the SIGINT
    expect(second.output()).toContain('stopped what npm start started');
    await waitUntil(() => pidsOf(out2).every((pid) => !alive(pid)), { what: 'run 2 stopped' });
    const machineNats = await connect({ servers: 'nats://127.0.0.1:4222', reconnect: false });
    await machineNats.close();

    // --fresh wipes the data of its own servers.
    const marker = path.join(stateDir, 'nats', 'marker');
    await writeFile(marker, 'x');
    const third = npmStart(['--fresh', '--demo-only']);
    expect(await third.exited, third.output()).toBe(0);
    expect(earlierSessions(third.output())).toBe(0);
    expect(existsSync(marker)).toBe(false);
  }, 400_000);

  it('explains how to get nats-server when there is none, and exits non-zero', async () => {
    const run = npmStart(['--demo-only'], {
      ...bareEnv,
      AW_STATE_DIR: path.join(stateDir, 'no-binary'),
      AW_NATS_SERVER: path.join(stateDir, 'no-such-nats-server'),
    });
    expect(await run.exited).toBe(1);
    for (const how of ['apt-get install nats-server', 'brew install nats-server', 'docker run']) {
      expect(run.output()).toContain(how);
    }
    expect(run.output()).not.toContain('started here');
  });
});
