import type { FastifyInstance, InjectOptions } from 'fastify';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../build-app.ts';
import { FakeBackend } from '../testing/fake-backend.ts';
import { MemoryOwners } from '../testing/memory-owners.ts';
import { createTokenVerifier } from './token-verifier.ts';

const SECRET = 'a-development-secret-of-32-chars!!';
const ISSUER = 'https://auth.example';
const AUDIENCE = 'agentwire';

interface Claims {
  tenant?: unknown;
  scope?: string;
  aud?: string;
  iss?: string;
  iatSecondsAgo?: number;
  expInSeconds?: number;
  secret?: string;
}

async function token(c: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const body: Record<string, unknown> = { scope: c.scope ?? 'read write' };
  if (c.tenant !== null) body.tenant = c.tenant ?? 'acme';
  return new SignJWT(body)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(c.iss ?? ISSUER)
    .setAudience(c.aud ?? AUDIENCE)
    .setSubject('user-1')
    .setJti(`jti-${Math.random()}`)
    .setIssuedAt(now - (c.iatSecondsAgo ?? 0))
    .setExpirationTime(now + (c.expInSeconds ?? 600))
    .sign(new TextEncoder().encode(c.secret ?? SECRET));
}

/** An unsigned token (`alg: none`) with valid claims: it must never pass. */
function unsigned(): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    tenant: 'acme',
    scope: 'admin',
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 600,
  };
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

let backend: FakeBackend;
let owners: MemoryOwners;
let app: FastifyInstance;

beforeEach(async () => {
  backend = new FakeBackend();
  owners = new MemoryOwners();
  const verify = await createTokenVerifier({
    keys: { kind: 'secret', secret: SECRET },
    issuer: ISSUER,
    audience: AUDIENCE,
    maxTokenAge: '1h',
  });
  app = buildApp({
    backend,
    heartbeatMs: 60_000,
    auth: { verify, owners, maxTokenBytes: 4096 },
    rateLimitPerMinute: 30,
  });
});
afterEach(() => app.close());

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

async function call(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const options: InjectOptions = {
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  };
  return app.inject(options);
}

/** Backend calls that change something (every call but lookups). */
const changes = () =>
  backend.calls.filter((c) => c.method !== 'knows' && c.method !== 'forkOrigin');

describe('gateway authentication (issue 15)', () => {
  it('answers 401 without a token and for a bad one, 403 without the scope, and calls nothing', async () => {
    expect((await call('POST', '/sessions', {}, {})).statusCode).toBe(401);
    expect(
      (await call('POST', '/sessions', { authorization: 'Basic YTpi' }, {})).json(),
    ).toMatchObject({
      error: { code: 'unauthenticated' },
    });
    const expired = await token({ iatSecondsAgo: 700, expInSeconds: -100 });
    expect((await call('POST', '/sessions', bearer(expired), {})).json()).toMatchObject({
      error: { code: 'token_expired' },
    });
    const readOnly = await token({ scope: 'read' });
    const refused = await call('POST', '/sessions', bearer(readOnly), {});
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect(changes()).toEqual([]);
    const created = await call('POST', '/sessions', bearer(await token()), {});
    expect(created.statusCode).toBe(201);
    expect(created.headers['x-content-type-options']).toBe('nosniff'); // helmet
  });

  const hostileTokens: [string, () => Promise<string> | string][] = [
    ['a forged signature', () => token({ secret: 'another-secret-that-is-32-chars-long' })],
    ['alg: none', unsigned],
    ['another audience', () => token({ aud: 'someone-else' })],
    ['another issuer', () => token({ iss: 'https://evil.example' })],
    [
      'a replayed old token (iat past the max age)',
      () => token({ iatSecondsAgo: 7200, expInSeconds: 600 }),
    ],
    ['no tenant', () => token({ tenant: null })],
    ['a tenant with subject wildcards', () => token({ tenant: 'acme.>' })],
    ['no scope', () => token({ scope: 'root' })],
    ['garbage', () => 'not.a.jwt'],
  ];
  it.each(hostileTokens)('refuses %s with 401 and changes nothing', async (_what, make) => {
    const res = await call('POST', '/sessions', bearer(await make()), {});
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(changes()).toEqual([]);
  });

  it('refuses a huge Authorization header unread', async () => {
    const res = await call(
      'POST',
      '/sessions',
      { authorization: `Bearer ${'a'.repeat(5000)}` },
      {},
    );
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: { code: 'token_too_large' } });
  });
});

describe('tenants (issue 15)', () => {
  it("answers another tenant's session 404, like one that does not exist, on every route", async () => {
    const a = bearer(await token({ tenant: 'tenant-a' }));
    const b = bearer(await token({ tenant: 'tenant-b', scope: 'admin' }));
    const created = await call('POST', '/sessions', a, {});
    const sid = created.json<{ sessionId: string }>().sessionId;
    backend.knownSessions.add(sid);
    backend.calls.length = 0;
    const probes = [
      await call('GET', `/sessions/${sid}/projection`, b),
      await call('GET', `/sessions/${sid}/events?after=0`, b),
      await call('POST', `/sessions/${sid}/prompt`, b, { text: 'steal' }),
      await call('POST', `/sessions/${sid}/rename`, b, { title: 'mine now' }),
      await call('POST', `/sessions/${sid}/interrupt`, b, {}),
      await call('POST', `/sessions/${sid}/permissions/req-1`, b, { decision: 'allow' }),
      await call('POST', `/sessions/${sid}/open`, b, {}),
    ];
    const missing = await call('GET', '/sessions/no-such-session/projection', b);
    for (const res of probes) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe(missing.json().error.code);
    }
    expect(changes()).toEqual([]);
    expect(owners.owners.get(sid)).toBe('tenant-a');
    const own = await call('POST', `/sessions/${sid}/prompt`, a, { text: 'mine' });
    expect(own.statusCode).toBe(202);
  });

  it('lets a tenant open a fresh id it then owns, but not an existing unowned one', async () => {
    const a = bearer(await token({ tenant: 'tenant-a' }));
    const b = bearer(await token({ tenant: 'tenant-b' }));
    expect((await call('POST', '/sessions/fresh-1/open', a, {})).statusCode).toBe(200);
    expect(owners.owners.get('fresh-1')).toBe('tenant-a');
    expect((await call('POST', '/sessions/fresh-1/open', b, {})).statusCode).toBe(404);
    // s1 exists (created over NATS, no owner): nobody may take it over the gateway.
    expect((await call('POST', '/sessions/s1/open', a, {})).statusCode).toBe(404);
  });

  it("gives a fork nobody claimed (it waited in the queue) to its original's tenant, and to no one else", async () => {
    const a = bearer(await token({ tenant: 'tenant-a' }));
    const b = bearer(await token({ tenant: 'tenant-b' }));
    const created = await call('POST', '/sessions', a, {});
    const original = created.json<{ sessionId: string }>().sessionId;
    // fork-1 came from the original, fork-2 from fork-1; neither was claimed.
    for (const [fork, from] of [
      ['fork-1', original],
      ['fork-2', 'fork-1'],
    ] as const) {
      backend.knownSessions.add(fork);
      backend.forkOrigins.set(fork, from);
    }
    expect((await call('GET', '/sessions/fork-2/projection', b)).statusCode).toBe(404);
    expect(owners.owners.has('fork-2')).toBe(false);
    expect((await call('GET', '/sessions/fork-2/projection', a)).statusCode).toBe(200);
    expect(owners.owners.get('fork-2')).toBe('tenant-a');
    expect(owners.owners.has('fork-1')).toBe(false);
    expect((await call('POST', '/sessions/fork-1/prompt', a, { text: 'go on' })).statusCode).toBe(
      202,
    );
    expect((await call('POST', '/sessions/fork-1/prompt', b, { text: 'steal' })).statusCode).toBe(
      404,
    );
    // A fork of a session nobody owns stays nobody's; a cycle ends the walk.
    backend.knownSessions.add('stray');
    backend.forkOrigins.set('stray', 's-unowned');
    backend.forkOrigins.set('s-unowned', 'stray');
    expect((await call('GET', '/sessions/stray/projection', a)).statusCode).toBe(404);
    expect(owners.owners.has('stray')).toBe(false);
  });

  it.each(['a*b', 'a>', 'a.b', '%2A', 'x'.repeat(201)])(
    'refuses the session id %s with 400 and no backend call',
    async (id) => {
      const a = bearer(await token());
      const res = await call('POST', `/sessions/${id}/prompt`, a, { text: 'x' });
      expect(res.statusCode).toBe(400);
      expect(changes()).toEqual([]);
    },
  );

  it('refuses header injection in Last-Event-ID with 400', async () => {
    const a = bearer(await token({ tenant: 'tenant-a' }));
    await call('POST', '/sessions/s2/open', a, {});
    for (const value of ['5 OR 1=1', '5, 6', '-1', '1e9', '5\tX-Injected: 1']) {
      const res = await call('GET', '/sessions/s2/events', { ...a, 'last-event-id': value });
      expect(res.statusCode, value).toBe(400);
    }
    expect(backend.followers).toHaveLength(0);
  });

  it('limits each token: the next request past the limit is 429, another token goes on', async () => {
    const a = bearer(await token({ tenant: 'tenant-a' }));
    const b = bearer(await token({ tenant: 'tenant-b' }));
    let last = 0;
    for (let i = 0; i < 31; i++)
      last = (await call('GET', '/sessions/x1/projection', a)).statusCode;
    expect(last).toBe(429);
    const limited = await call('GET', '/sessions/x1/projection', a);
    expect(limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect((await call('GET', '/sessions/x1/projection', b)).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
