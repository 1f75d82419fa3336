import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenVerifier } from './auth/token-verifier.ts';
import { buildApp } from './build-app.ts';
import { GatewayConfig } from './config.ts';
import { FakeBackend } from './testing/fake-backend.ts';
import { MemoryOwners } from './testing/memory-owners.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
});

const preflight = (origin: string) => ({
  method: 'OPTIONS' as const,
  url: '/sessions/s1/prompt',
  headers: {
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type',
  },
});

describe('gateway CORS (AW_GATEWAY_CORS_ORIGINS)', () => {
  it('is off by default: no CORS headers, no preflight route', async () => {
    app = buildApp({ backend: new FakeBackend() });
    const res = await app.inject(preflight('https://app.example.com'));
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await app.inject({
      url: '/sessions/s1/projection',
      headers: { origin: 'https://app.example.com' },
    });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers preflights and requests from the listed origins only', async () => {
    const backend = new FakeBackend();
    app = buildApp({ backend, corsOrigins: ['https://app.example.com'] });
    const ok = await app.inject(preflight('https://app.example.com'));
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(ok.headers['access-control-allow-headers']).toMatch(/authorization/);
    expect(ok.headers['access-control-allow-headers']).toMatch(/last-event-id/);
    expect(ok.headers['access-control-allow-methods']).toMatch(/POST/);
    const other = await app.inject(preflight('https://evil.example.net'));
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const get = await app.inject({
      url: '/sessions/s1/projection',
      headers: { origin: 'https://app.example.com' },
    });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(get.headers.vary).toMatch(/origin/i);
    expect(backend.calls.filter((c) => c.method === 'prompt')).toEqual([]);
  });

  it('answers a preflight before authentication, and still asks the request for its token', async () => {
    const verify = await createTokenVerifier({
      keys: { kind: 'secret', secret: 'a-development-secret-of-32-chars!!' },
      issuer: 'https://auth.example',
      audience: 'agentwire',
      maxTokenAge: '1h',
    });
    app = buildApp({
      backend: new FakeBackend(),
      corsOrigins: ['https://app.example.com'],
      auth: { verify, owners: new MemoryOwners(), maxTokenBytes: 4096 },
    });
    const ok = await app.inject(preflight('https://app.example.com'));
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const get = await app.inject({
      url: '/sessions/s1/projection',
      headers: { origin: 'https://app.example.com' },
    });
    expect(get.statusCode).toBe(401);
    expect(get.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });

  it('reads the origins from the environment and refuses what is not an origin', () => {
    const parsed = GatewayConfig.parse({
      AW_GATEWAY_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
    });
    expect(parsed.AW_GATEWAY_CORS_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(GatewayConfig.parse({}).AW_GATEWAY_CORS_ORIGINS).toEqual([]);
    expect(GatewayConfig.parse({ AW_GATEWAY_CORS_ORIGINS: '*' }).AW_GATEWAY_CORS_ORIGINS).toEqual([
      '*',
    ]);
    const bad = GatewayConfig.safeParse({ AW_GATEWAY_CORS_ORIGINS: 'app.example.com/path' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/origins/);
  });
});

describe('gateway API reference page (/docs)', () => {
  it('serves Swagger UI over the same document as /openapi.json, hidden from it', async () => {
    app = buildApp({ backend: new FakeBackend() });
    const page = await app.inject({ url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.payload).toMatch(/swagger-ui/i);
    const script = await app.inject({ url: '/docs/static/swagger-initializer.js' });
    expect(script.statusCode).toBe(200);
    const docJson = await app.inject({ url: '/docs/json' });
    const openapi = await app.inject({ url: '/openapi.json' });
    expect(docJson.json()).toEqual(openapi.json());
    const paths = Object.keys((openapi.json() as { paths: object }).paths);
    expect(paths.some((p) => p.startsWith('/docs'))).toBe(false);
    expect(paths).toContain('/sessions/{id}/events');
  });
});
