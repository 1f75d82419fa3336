import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATS_ROLES, type NatsRole, natsAuthorizationConfig } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { openSse, type Stack, startStack } from '@agentwire/gateway/testing';
import {
  createTestEnvironment,
  type NatsServerProcess,
  natsServerSupport,
  startNatsServer,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { spawnTitleSidecar, type TitleSidecarProcess } from '@agentwire/title-sidecar/testing';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../services/cli/src/main.ts', import.meta.url));
const support = natsServerSupport();
const passwords = Object.fromEntries(
  NATS_ROLES.map((r) => [r, randomBytes(9).toString('hex')]),
) as Record<NatsRole, string>;
const SECRET = randomBytes(24).toString('hex');
const token = (tenant: string) =>
  new SignJWT({ tenant, scope: 'read write' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('test')
    .setAudience('agentwire')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
const as = (role: NatsRole) => ({ NATS_USER: role, NATS_PASSWORD: passwords[role] });

describe.skipIf(!support.ok)('the whole stack with one least-privilege NATS user per role', () => {
  let env: TestEnvironment;
  let server: NatsServerProcess;
  let stack: Stack;
  let sidecar: TitleSidecarProcess;
  let dir: string;
  let demo: ChildProcess | undefined;

  beforeAll(async () => {
    env = await createTestEnvironment();
    dir = await mkdtemp(path.join(tmpdir(), 'aw-nats-users-'));
    const configFile = path.join(dir, 'users.conf');
    await writeFile(configFile, natsAuthorizationConfig(names(env.prefix), passwords));
    server = await startNatsServer({ configFile });
    const stackEnv = { natsUrl: server.url, databaseUrl: env.databaseUrl, prefix: env.prefix };
    stack = await startStack(stackEnv, {
      gateway: true,
      gatewayEnv: {
        ...as('gateway'),
        AW_GATEWAY_AUTH: 'jwt',
        AW_GATEWAY_JWT_SECRET: SECRET,
        AW_GATEWAY_JWT_ISSUER: 'test',
        AW_GATEWAY_JWT_AUDIENCE: 'agentwire',
      },
      serviceEnv: {
        worker: as('persistence-worker'),
        runtime: { ...as('runtime'), AW_TITLE_GENERATION: 'on' },
        projection: as('projection'),
        query: as('query'),
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
    if (demo?.exitCode === null) demo.kill('SIGKILL'); // a test that timed out
    sidecar?.kill('SIGTERM');
    await sidecar?.exited;
    await stack?.stop().catch(() => undefined);
    await server?.dispose();
    await env?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the demo as the frontend user and the gateway as its own, with no permission refused', async () => {
    const child = spawn(process.execPath, [CLI, 'demo'], {
      env: { ...process.env, NATS_URL: server.url, AW_PREFIX: env.prefix, ...as('frontend') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    demo = child;
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, out).toBe(0);
    expect(out).toMatch(/turn_complete/);
    expect(out).toMatch(/session_title_updated {2}title .* \(generated\)/);
    const sid = /^session (\S+)$/m.exec(out)?.[1];

    // The gateway, as its own NATS user with tenants on: the CLI's session has no owner.
    const a = { authorization: `Bearer ${await token('tenant-a')}` };
    const b = { authorization: `Bearer ${await token('tenant-b')}` };
    const url = stack.gatewayUrl;
    expect((await fetch(`${url}/sessions/${sid}/projection`, { headers: a })).status).toBe(404);
    const created = await fetch(`${url}/sessions`, { method: 'POST', headers: a });
    expect(created.status).toBe(201);
    const mine = ((await created.json()) as { sessionId: string }).sessionId;
    const prompt = (headers: Record<string, string>) =>
      fetch(`${url}/sessions/${mine}/prompt`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello', wait: true }),
      });
    expect((await prompt(b)).status).toBe(404);
    expect((await prompt(a)).status).toBe(200);
    expect((await fetch(`${url}/sessions/${mine}/projection`, { headers: b })).status).toBe(404);
    expect((await fetch(`${url}/sessions/${mine}/projection`, { headers: a })).status).toBe(200);
    const sse = await openSse(`${url}/sessions/${mine}/events?after=0`, a);
    await waitUntil(() => sse.events.some((e) => e.type === 'turn_complete'), {
      what: 'the gateway user to replay the session',
    });
    sse.abort();
    expect((await openSse(`${url}/sessions/${mine}/events?after=0`, b)).status).toBe(404);

    // The read side, as the query user: a tenant lists and reads only its own sessions.
    const list = async (headers: Record<string, string>) =>
      (
        (await (await fetch(`${url}/sessions?limit=50`, { headers })).json()) as {
          sessions: { id: string }[];
        }
      ).sessions.map((s) => s.id);
    expect(await list(a)).toEqual([mine]);
    expect(await list(b)).toEqual([]);
    const history = await fetch(`${url}/sessions/${mine}/history`, { headers: a });
    expect(history.status).toBe(200);
    const page = (await history.json()) as { messages: { message: { id: string } }[] };
    expect(page.messages.length).toBeGreaterThan(0);
    expect((await fetch(`${url}/sessions/${mine}/history`, { headers: b })).status).toBe(404);

    // A fork that waits in the queue (a turn runs) is answered 202 and made after the
    // answer, unclaimed: its original's tenant reaches it, then owns it (docs/decisions/0243).
    const post = (route: string, headers: Record<string, string>, body: unknown) =>
      fetch(`${url}${route}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const follow = await openSse(`${url}/sessions/${mine}/events?after=0`, a);
    const held = await post(`/sessions/${mine}/prompt`, a, { text: '[scenario:held_stream] hold' });
    expect(held.status).toBe(202);
    await waitUntil(() => follow.events.filter((e) => e.type === 'turn_started').length >= 2, {
      what: 'the held turn to start',
    });
    const queuedFork = await post(`/sessions/${mine}/fork`, a, {
      messageId: page.messages[0]?.message.id,
    });
    expect(queuedFork.status, await queuedFork.clone().text()).toBe(202);
    expect((await post(`/sessions/${mine}/interrupt`, a, {})).ok).toBe(true);
    await waitUntil(() => follow.events.some((e) => e.type === 'session_forked'), {
      what: 'the queued fork to run',
    });
    follow.abort();
    const forkedEvent = follow.events.find((e) => e.type === 'session_forked');
    const forked = forkedEvent?.payload as { forkedSessionId?: string } | undefined;
    const forkId = String(forked?.forkedSessionId);
    await waitUntil(
      async () =>
        (await fetch(`${url}/sessions/${forkId}/projection`, { headers: a })).status === 200,
      { what: "the fork's projection for its original's tenant", intervalMs: 200 },
    );
    expect((await fetch(`${url}/sessions/${forkId}/projection`, { headers: b })).status).toBe(404);
    expect(await list(a)).toContain(forkId);
    expect(await list(b)).toEqual([]);

    const refused = server.lines.filter((l) => /Violation/i.test(l));
    expect(refused).toEqual([]);
  });
});
