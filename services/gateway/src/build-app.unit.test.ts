import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import { SseHub } from './sse-hub.ts';
import { FakeBackend } from './testing/fake-backend.ts';

let backend: FakeBackend;
let hub: SseHub;
let app: FastifyInstance;

beforeEach(() => {
  backend = new FakeBackend();
  hub = new SseHub();
  app = buildApp({ backend, hub, bodyLimit: 1024, heartbeatMs: 60_000 });
});
afterEach(async () => {
  await app.close();
});

const json = (body: unknown) => ({
  payload: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('gateway command routes', () => {
  it('opens a new session with 201 and an existing one with 200', async () => {
    const created = await app.inject({ method: 'POST', url: '/sessions' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ sessionId: 'new-session', owner: 'rt1', lastSequence: 0 });
    const opened = await app.inject({ method: 'POST', url: '/sessions/s1/open' });
    expect(opened.statusCode).toBe(200);
    expect(backend.calls.map((c) => c.args[0])).toEqual([undefined, 's1']);
  });

  it('forwards a prompt (202 at once, 200 with wait) and answers permissions by path', async () => {
    const quick = await app.inject({
      method: 'POST',
      url: '/sessions/s1/prompt',
      ...json({ text: 'hi' }),
    });
    expect(quick.statusCode).toBe(202);
    expect(quick.json()).toEqual({ sessionId: 's1', turnId: 'turn-9', queued: false });
    const waited = await app.inject({
      method: 'POST',
      url: '/sessions/s1/prompt',
      ...json({ text: 'hi', wait: true }),
    });
    expect(waited.statusCode).toBe(200);
    expect(waited.json()).toMatchObject({ status: 'complete', response: 'done' });
    const answer = await app.inject({
      method: 'POST',
      url: '/sessions/s1/permissions/req-1',
      ...json({ decision: 'allow', reason: 'fine' }),
    });
    expect(answer.statusCode).toBe(200);
    expect(backend.calls.at(-1)).toEqual({
      method: 'answerPermission',
      args: ['s1', { decision: 'allow', reason: 'fine', requestId: 'req-1' }],
    });
    const renamed = await app.inject({
      method: 'POST',
      url: '/sessions/s1/rename',
      ...json({ title: ' T ' }),
    });
    expect(renamed.json()).toEqual({ title: 'T' });
    const interrupted = await app.inject({ method: 'POST', url: '/sessions/s1/interrupt' });
    expect(interrupted.json()).toEqual({ turnId: 'turn-9' });
    const closed = await app.inject({ method: 'POST', url: '/sessions/s1/close' });
    expect(closed.statusCode).toBe(200);
    expect(backend.calls.at(-1)).toEqual({ method: 'close', args: ['s1'] });
  });

  it('returns the projection snapshot, and 404 when there is none', async () => {
    const found = await app.inject({ method: 'GET', url: '/sessions/s1/projection' });
    expect(found.json()).toEqual({ projection: { title: 'x' }, asOfSeq: 7 });
    backend.failNext = { ok: false, error: { code: 'not_found', message: 'no projection' } };
    const missing = await app.inject({ method: 'GET', url: '/sessions/s2/projection' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'no projection' } });
  });

  it('answers a prompt during a running turn with 202 and the queued input', async () => {
    backend.runningTurn = 'turn-9';
    const res = await app.inject({
      method: 'POST',
      url: '/sessions/s1/prompt',
      ...json({ text: 'and then this', delivery: 'guide' }),
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      queued: true,
      sessionId: 's1',
      inputId: 'input-2',
      delivery: 'guide',
      targetTurnId: 'turn-9',
      queueLength: 1,
    });
  });

  it.each([
    ['unknown_session', 404],
    ['lease_conflict', 409],
    ['turn_in_progress', 409],
    ['expected_turn_mismatch', 409],
    ['turn_not_steerable', 409],
    ['duplicate_input', 409],
    ['input_not_pending', 404],
    ['prompt_too_large', 413],
    ['timeout', 504],
    ['write_not_confirmed', 504],
    ['unavailable', 503],
    ['session_broken', 503],
    ['invalid_reply', 502],
    ['a_code_from_the_future', 502],
    ['toString', 502],
  ])('maps the runtime failure %s to HTTP %i', async (code, status) => {
    backend.failNext = { ok: false, error: { code, message: `failed: ${code}`, detail: { a: 1 } } };
    const res = await app.inject({
      method: 'POST',
      url: '/sessions/s1/prompt',
      ...json({ text: 'x' }),
    });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: { code, message: `failed: ${code}`, detail: { a: 1 } } });
  });
});

describe('gateway bad input', () => {
  const cases: [string, InjectOptions, number, string, RegExp][] = [
    [
      'session id with a dot',
      { method: 'POST', url: '/sessions/a.b/prompt', ...json({ text: 'x' }) },
      400,
      'invalid_request',
      /params\.id/,
    ],
    [
      'text of the wrong type',
      { method: 'POST', url: '/sessions/s1/prompt', ...json({ text: 42 }) },
      400,
      'invalid_request',
      /body\.text/,
    ],
    [
      'missing text',
      { method: 'POST', url: '/sessions/s1/prompt', ...json({}) },
      400,
      'invalid_request',
      /body\.text/,
    ],
    [
      'unknown field',
      { method: 'POST', url: '/sessions/s1/rename', ...json({ title: 'x', colour: 'red' }) },
      400,
      'invalid_request',
      /colour/,
    ],
    [
      'bad decision',
      { method: 'POST', url: '/sessions/s1/permissions/r1', ...json({ decision: 'maybe' }) },
      400,
      'invalid_request',
      /body\.decision/,
    ],
    [
      'malformed JSON',
      {
        method: 'POST',
        url: '/sessions/s1/prompt',
        payload: '{"text":',
        headers: { 'content-type': 'application/json' },
      },
      400,
      'invalid_json',
      /JSON/i,
    ],
    [
      'body over the limit',
      { method: 'POST', url: '/sessions/s1/prompt', ...json({ text: 'x'.repeat(2000) }) },
      413,
      'body_too_large',
      /too large/i,
    ],
    [
      'unsupported media type',
      {
        method: 'POST',
        url: '/sessions/s1/prompt',
        payload: 'text',
        headers: { 'content-type': 'text/csv' },
      },
      415,
      'unsupported_media_type',
      /media type/i,
    ],
    [
      'negative after',
      { method: 'GET', url: '/sessions/s1/events?after=-1' },
      400,
      'invalid_request',
      /query\.after/,
    ],
    [
      'unknown query key',
      { method: 'GET', url: '/sessions/s1/events?from=3' },
      400,
      'invalid_request',
      /from/,
    ],
    [
      'bad Last-Event-ID',
      { method: 'GET', url: '/sessions/s1/events', headers: { 'last-event-id': 'abc' } },
      400,
      'invalid_request',
      /last-event-id/,
    ],
    [
      'unknown session to follow',
      { method: 'GET', url: '/sessions/nobody/events' },
      404,
      'unknown_session',
      /nobody/,
    ],
    ['unknown route', { method: 'DELETE', url: '/sessions/s1' }, 404, 'route_not_found', /DELETE/],
    [
      'snapshot neither true nor false',
      { method: 'GET', url: '/sessions/s1/events?snapshot=yes' },
      400,
      'invalid_request',
      /query\.snapshot: must be true or false/,
    ],
    [
      'a fractional after',
      { method: 'GET', url: '/sessions/s1/events?after=1.5' },
      400,
      'invalid_request',
      /query\.after/,
    ],
    [
      'after given twice',
      { method: 'GET', url: '/sessions/s1/events?after=1&after=2' },
      400,
      'invalid_request',
      /query\.after/,
    ],
    [
      'a negative Last-Event-ID',
      { method: 'GET', url: '/sessions/s1/events', headers: { 'last-event-id': '-1' } },
      400,
      'invalid_request',
      /last-event-id/,
    ],
    [
      'a Last-Event-ID of 16 digits',
      {
        method: 'GET',
        url: '/sessions/s1/events',
        headers: { 'last-event-id': '1234567890123456' },
      },
      400,
      'invalid_request',
      /last-event-id/,
    ],
    [
      'a follow id with a NATS wildcard *',
      { method: 'GET', url: '/sessions/s%2A/events' },
      400,
      'invalid_request',
      /params\.id/,
    ],
    [
      'a follow id with a NATS wildcard >',
      { method: 'GET', url: '/sessions/s%3E/events' },
      400,
      'invalid_request',
      /params\.id/,
    ],
    [
      'a follow id with a dot',
      { method: 'GET', url: '/sessions/s.1/events' },
      400,
      'invalid_request',
      /params\.id/,
    ],
    [
      'a follow id over 200 characters',
      { method: 'GET', url: `/sessions/${'s'.repeat(201)}/events` },
      400,
      'invalid_request',
      /params\.id/,
    ],
    [
      'the events route with the wrong method',
      { method: 'POST', url: '/sessions/s1/events', ...json({}) },
      404,
      'route_not_found',
      /POST/,
    ],
  ];
  it.each(cases)('%s', async (_what, request, status, code, message) => {
    const res = await app.inject(request);
    expect(res.statusCode).toBe(status);
    const body = res.json() as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
    expect(backend.calls.filter((c) => c.method !== 'knows')).toEqual([]);
  });
});

describe('gateway operations', () => {
  it('serves health, readiness and metrics', async () => {
    expect((await app.inject({ url: '/healthz' })).json()).toMatchObject({ service: 'gateway' });
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(200);
  });
});
