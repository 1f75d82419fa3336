import type { RuntimeFailureCode } from '@agentwire/bus';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenVerifier } from './auth/token-verifier.ts';
import { buildApp } from './build-app.ts';
import { SseHub } from './sse-hub.ts';
import { FakeBackend } from './testing/fake-backend.ts';
import { MemoryOwners } from './testing/memory-owners.ts';

let backend: FakeBackend;
let app: FastifyInstance;

beforeEach(() => {
  backend = new FakeBackend();
  app = buildApp({ backend, hub: new SseHub(), bodyLimit: 1024, heartbeatMs: 60_000 });
});
afterEach(async () => {
  await app.close();
});

const json = (body: unknown) => ({
  payload: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

const ROUTES = [
  ['GET', '/sessions/s1/checkpoints', undefined],
  ['POST', '/sessions/s1/rewind', { target: 'cp_1' }],
  ['GET', '/sessions/s1/tree', undefined],
  ['POST', '/sessions/s1/tree', { messageId: 'msg_5' }],
] as const;

const inject = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  app.inject({ method, url, ...(body === undefined ? {} : json(body)) });

describe('gateway tree and checkpoint routes (docs/decisions/0242)', () => {
  it('maps each route onto the rewind or tree operation and answers the result, 200', async () => {
    const replies = [];
    for (const [method, url, body] of ROUTES) replies.push(await inject(method, url, body));
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(backend.calls.map((c) => [c.method, ...c.args])).toEqual([
      ['rewind', 's1'],
      ['rewind', 's1', 'cp_1'],
      ['tree', 's1'],
      ['tree', 's1', 'msg_5'],
    ]);
    const [checkpoints, rewound, listed, moved] = replies.map((r) => r.json());
    expect(checkpoints).toEqual({
      sessionId: 's1',
      inputId: 'input-3',
      command: 'rewind',
      queued: false,
      result: { checkpoints: [{ checkpointId: 'cp_1', messageId: 'msg_2', fileCount: 2 }] },
    });
    expect(rewound).toMatchObject({
      command: 'rewind',
      result: { strategy: 'active_chain', targetCheckpointId: 'cp_1' },
    });
    expect(listed).toMatchObject({
      command: 'tree',
      result: { leafId: 'msg_9', branches: [{ active: true }, { active: false }] },
    });
    expect(moved).toMatchObject({ command: 'tree', result: { targetMessageId: 'msg_5' } });
  });

  it('answers 202 with the ticket while a turn runs: the command waits in the queue', async () => {
    backend.runningTurn = 'turn-1';
    for (const [method, url, body] of ROUTES) {
      const r = await inject(method, url, body);
      expect(r.statusCode, url).toBe(202);
      expect(r.json()).toEqual({
        sessionId: 's1',
        inputId: 'input-3',
        delivery: 'queue',
        targetTurnId: 'turn-1',
        queueLength: 1,
        queued: true,
      });
    }
  });

  it.each([
    ['unknown_checkpoint', 404],
    ['unknown_message', 404],
    ['checkpoint_not_on_branch', 409],
    ['nothing_to_rewind', 409],
    ['turn_in_progress', 409],
    ['invalid_command', 400],
    ['unknown_session', 404],
  ] satisfies [RuntimeFailureCode, number][])('maps %s to %i', async (code, status) => {
    for (const [method, url, body] of ROUTES) {
      backend.failNext = { ok: false, error: { code, message: `refused: ${code}` } };
      const r = await inject(method, url, body);
      expect(r.statusCode, url).toBe(status);
      expect(r.json()).toEqual({ error: { code, message: `refused: ${code}` } });
    }
  });

  it.each([
    ['POST', '/sessions/s1/rewind', { target: 'msg_*' }, 'body.target'],
    ['POST', '/sessions/s1/rewind', { target: 'cp_1 cp_2' }, 'body.target'],
    ['POST', '/sessions/s1/rewind', { target: 'aw.rt.>' }, 'body.target'],
    ['POST', '/sessions/s1/rewind', { target: 'msg_1\n' }, 'body.target'],
    ['POST', '/sessions/s1/rewind', { target: '' }, 'body.target'],
    ['POST', '/sessions/s1/rewind', {}, 'body.target'],
    ['POST', '/sessions/s1/rewind', { target: 'cp_1', wait: true }, 'body'],
    ['POST', '/sessions/s1/tree', { messageId: 'msg *' }, 'body.messageId'],
    ['POST', '/sessions/s1/tree', { messageId: 7 }, 'body.messageId'],
    ['POST', '/sessions/s1/tree', {}, 'body.messageId'],
    ['GET', '/sessions/s*1/tree', undefined, 'params.id'],
    ['GET', '/sessions/a.b/checkpoints', undefined, 'params.id'],
  ] as const)(
    'refuses %s %s %j with a 400 naming %s, nothing sent',
    async (method, url, body, field) => {
      const r = await inject(method, url, body);
      expect(r.statusCode, r.body).toBe(400);
      const error = r.json<{ error: { code: string; detail: { issues: { path: string }[] } } }>()
        .error;
      expect(error.code).toBe('invalid_request');
      expect(error.detail.issues.map((i) => i.path)).toContain(field);
      expect(backend.calls).toEqual([]);
    },
  );

  it('lists the four routes in the OpenAPI document with their bodies and answers', async () => {
    await app.ready();
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: unknown; responses: object }>>;
    }>();
    expect(Object.keys(doc.paths['/sessions/{id}/tree'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/sessions/{id}/checkpoints']?.get).toBeDefined();
    const rewind = doc.paths['/sessions/{id}/rewind']?.post;
    expect(JSON.stringify(rewind?.requestBody)).toContain('target');
    expect(Object.keys(rewind?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '202', '4XX', '5XX']),
    );
  });
});

describe('tree routes with tenants (docs/decisions/0146)', () => {
  const SECRET = 'a-development-secret-of-32-chars!!';
  const token = (tenant: string, scope: string) =>
    new SignJWT({ tenant, scope })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://auth.example')
      .setAudience('agentwire')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));

  it("answers another tenant's session 404 and needs write to move, read to list", async () => {
    await app.close();
    const owners = new MemoryOwners();
    owners.owners.set('s1', 'tenant-a');
    const verify = await createTokenVerifier({
      keys: { kind: 'secret', secret: SECRET },
      issuer: 'https://auth.example',
      audience: 'agentwire',
      maxTokenAge: '1h',
    });
    app = buildApp({ backend, heartbeatMs: 60_000, auth: { verify, owners, maxTokenBytes: 4096 } });
    const as = async (tenant: string, scope: string) => ({
      authorization: `Bearer ${await token(tenant, scope)}`,
    });
    const other = await as('tenant-b', 'admin');
    for (const [method, url, body] of ROUTES) {
      const r = await app.inject({
        method,
        url,
        ...(body === undefined
          ? { headers: other }
          : { ...json(body), headers: { ...json(body).headers, ...other } }),
      });
      expect(r.statusCode, url).toBe(404);
      expect(r.json()).toMatchObject({ error: { code: 'unknown_session' } });
    }
    const reader = await as('tenant-a', 'read');
    expect(
      (await app.inject({ method: 'GET', url: '/sessions/s1/tree', headers: reader })).statusCode,
    ).toBe(200);
    const refused = await app.inject({
      method: 'POST',
      url: '/sessions/s1/tree',
      payload: JSON.stringify({ messageId: 'msg_5' }),
      headers: { ...reader, 'content-type': 'application/json' },
    });
    expect(refused.statusCode).toBe(403);
    expect(backend.calls.filter((c) => c.method !== 'knows').map((c) => c.method)).toEqual([
      'tree',
    ]);
  });
});
