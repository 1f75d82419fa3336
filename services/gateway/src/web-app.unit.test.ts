import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import { FakeBackend } from './testing/fake-backend.ts';
import { webAppDir } from './web-app.ts';

let dir: string;
let app: FastifyInstance;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aw-web-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>agentwire</title>');
  await writeFile(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
  app = buildApp({ backend: new FakeBackend(), webDir: dir });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the gateway serves the web client', () => {
  it('serves index.html at / (never cached) and hashed assets (cached for good)', async () => {
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>agentwire</title>');
    expect(page.headers['cache-control']).toBe('no-cache');
    const asset = await app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('leaves every other path to the API: unknown ones get the gateway 404', async () => {
    const missing = await app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'route_not_found' } });
    const outside = await app.inject({ method: 'GET', url: '/../package.json' });
    expect(outside.statusCode).toBe(404);
    const api = await app.inject({ method: 'GET', url: '/sessions/s1/projection' });
    expect(api.statusCode).toBe(200);
  });

  it('keeps its files out of /openapi.json', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/sessions'))).toEqual([]);
  });

  it('takes AW_WEB_DIR, and off serves none', () => {
    expect(webAppDir('/srv/web')).toBe('/srv/web');
    expect(webAppDir('off')).toBeUndefined();
  });
});
