import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATS_ROLES, type NatsRole, natsAuthorizationConfig } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import {
  createTestEnvironment,
  type NatsServerProcess,
  natsServerSupport,
  startNatsServer,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../services/gateway/src/testing/sse-client.ts';
import { type Stack, startStack } from '../services/gateway/src/testing/start-stack.ts';
import {
  spawnTitleSidecar,
  type TitleSidecarProcess,
} from '../services/title-sidecar/src/testing/spawn-title-sidecar.ts';

const CLI = fileURLToPath(new URL('../services/cli/src/main.ts', import.meta.url));
const support = natsServerSupport();
const passwords = Object.fromEntries(
  NATS_ROLES.map((r) => [r, randomBytes(9).toString('hex')]),
) as Record<NatsRole, string>;
const as = (role: NatsRole) => ({ NATS_USER: role, NATS_PASSWORD: passwords[role] });

describe.skipIf(!support.ok)('the whole stack with one least-privilege NATS user per role', () => {
  let env: TestEnvironment;
  let server: NatsServerProcess;
  let stack: Stack;
  let sidecar: TitleSidecarProcess;
  let dir: string;

  beforeAll(async () => {
    env = await createTestEnvironment();
    dir = await mkdtemp(path.join(tmpdir(), 'aw-nats-users-'));
    const configFile = path.join(dir, 'users.conf');
    await writeFile(configFile, natsAuthorizationConfig(names(env.prefix), passwords));
    server = await startNatsServer({ configFile });
    const stackEnv = { natsUrl: server.url, databaseUrl: env.databaseUrl, prefix: env.prefix };
    stack = await startStack(stackEnv, {
      gateway: true,
      gatewayEnv: as('gateway'),
      serviceEnv: {
        worker: as('persistence-worker'),
        runtime: { ...as('runtime'), AW_TITLE_GENERATION: 'on' },
        projection: as('projection'),
      },
    });
    sidecar = await spawnTitleSidecar({
      NATS_URL: server.url,
      DATABASE_URL: env.databaseUrl,
      AW_PREFIX: env.prefix,
      ...as('title-sidecar'),
    });
  });

  afterAll(async () => {
    sidecar?.kill('SIGTERM');
    await sidecar?.exited;
    await stack?.stop().catch(() => undefined);
    await server?.dispose();
    await env?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the demo as the frontend user and the gateway as its own, with no permission refused', async () => {
    const demo = spawn(process.execPath, [CLI, 'demo'], {
      env: { ...process.env, NATS_URL: server.url, AW_PREFIX: env.prefix, ...as('frontend') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    demo.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    demo.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => demo.once('exit', resolve));
    expect(code, out).toBe(0);
    expect(out).toMatch(/turn_complete/);
    expect(out).toMatch(/session_title_updated {2}title .* \(generated\)/);
    const sid = /^session (\S+)$/m.exec(out)?.[1];

    const projection = await fetch(`${stack.gatewayUrl}/sessions/${sid}/projection`);
    expect(projection.status).toBe(200);
    const created = await fetch(`${stack.gatewayUrl}/sessions`, { method: 'POST' });
    expect(created.status).toBe(201);
    const sse = await openSse(`${stack.gatewayUrl}/sessions/${sid}/events?after=0`);
    await waitUntil(() => sse.events.some((e) => e.type === 'turn_complete'), {
      what: 'the gateway user to replay the session',
    });
    sse.abort();

    const refused = server.lines.filter((l) => /Violation/i.test(l));
    expect(refused).toEqual([]);
  });
});
