import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServiceApp, listenServiceApp, type Readiness } from './build-service-app.ts';

describe('buildServiceApp', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('answers /healthz while alive', async () => {
    app = buildServiceApp({
      name: 'svc',
      readiness: () => ({ ok: false, detail: {} }),
      metricsText: async () => '',
    });
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'alive', service: 'svc' });
  });

  it('answers /readyz with 503 and reasons until ready, then 200', async () => {
    let readiness: Readiness = { ok: false, detail: { nats: 'connecting', postgres: 'migrating' } };
    app = buildServiceApp({ name: 'svc', readiness: () => readiness, metricsText: async () => '' });
    const before = await app.inject({ method: 'GET', url: '/readyz' });
    expect(before.statusCode).toBe(503);
    expect(before.json()).toEqual({
      status: 'not_ready',
      detail: { nats: 'connecting', postgres: 'migrating' },
    });
    readiness = { ok: true, detail: { nats: 'connected' } };
    const after = await app.inject({ method: 'GET', url: '/readyz' });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ status: 'ready', detail: { nats: 'connected' } });
  });

  it('serves Prometheus text on /metrics and 500 when collection fails', async () => {
    let fail = false;
    const text = '# TYPE aw_processed_total counter\naw_processed_total 3\n';
    app = buildServiceApp({
      name: 'svc',
      readiness: () => ({ ok: true, detail: {} }),
      metricsText: async () => {
        if (fail) throw new Error('boom');
        return text;
      },
    });
    const ok = await app.inject({ method: 'GET', url: '/metrics' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain('text/plain; version=0.0.4');
    expect(ok.body).toBe(text);
    fail = true;
    const bad = await app.inject({ method: 'GET', url: '/metrics' });
    expect(bad.statusCode).toBe(500);
  });

  it('listens on an ephemeral port and logs it', async () => {
    const lines: { obj: object; msg: string | undefined }[] = [];
    const logger = {
      info: (obj: object, msg?: string) => lines.push({ obj, msg }),
      warn() {},
      error() {},
    };
    app = buildServiceApp({
      name: 'svc',
      readiness: () => ({ ok: true, detail: {} }),
      metricsText: async () => '',
    });
    const port = await listenServiceApp(app, { name: 'svc', port: 0, host: '127.0.0.1', logger });
    expect(port).toBeGreaterThan(0);
    expect(lines).toEqual([{ obj: { service: 'svc', port }, msg: 'svc http listening' }]);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });
});
