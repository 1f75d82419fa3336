import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import { SseHub } from './sse-hub.ts';
import { FakeBackend } from './testing/fake-backend.ts';

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

describe('gateway queue, mode and ticket routes (issue 11, issue 13)', () => {
  it('maps each queue route and the mode onto its runtime operation', async () => {
    const calls = [
      await app.inject({ method: 'DELETE', url: '/sessions/s1/queue/in_1' }),
      await app.inject({
        method: 'PATCH',
        url: '/sessions/s1/queue/in_1',
        ...json({ text: 'new' }),
      }),
      await app.inject({
        method: 'POST',
        url: '/sessions/s1/queue/in_1/move',
        ...json({ position: 0 }),
      }),
      await app.inject({
        method: 'PUT',
        url: '/sessions/s1/queue/order',
        ...json({ orderedInputIds: ['in_2'] }),
      }),
      await app.inject({ method: 'POST', url: '/sessions/s1/queue/clear', ...json({}) }),
      await app.inject({ method: 'POST', url: '/sessions/s1/mode', ...json({ mode: 'plan' }) }),
      await app.inject({
        method: 'PUT',
        url: '/sessions/s1/queue/modes',
        ...json({ followUpMode: 'all', autoDrain: false }),
      }),
    ];
    expect(calls.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200, 200]);
    expect(backend.calls.map((c) => [c.method, ...c.args])).toEqual([
      ['removeInput', 's1', 'in_1'],
      ['editInput', 's1', 'in_1', 'new'],
      ['moveInput', 's1', 'in_1', 0],
      ['reorderInputs', 's1', ['in_2']],
      ['clearInputs', 's1'],
      ['setMode', 's1', 'plan'],
      ['setQueueModes', 's1', { followUpMode: 'all', autoDrain: false }],
    ]);
  });

  it("streams a ticket's states as Server-Sent Events, then ends; an unknown one is a 404", async () => {
    const r = await app.inject({ method: 'GET', url: '/sessions/s1/tickets/in_1/events' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = r.body
      .split('\n\n')
      .filter((f) => f.startsWith('event: ticket'))
      .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)?.[1] ?? 'null'));
    expect(frames).toEqual([
      { ticketId: 'in_1', state: 'delivered' },
      { ticketId: 'in_1', state: 'completed' },
    ]);
    expect(backend.calls.map((c) => c.args.at(-1))).toEqual(['delivered', 'completed']);
    backend.failNext = { ok: false, error: { code: 'unknown_ticket', message: 'no ticket in_9' } };
    const unknown = await app.inject({ method: 'GET', url: '/sessions/s1/tickets/in_9/events' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'unknown_ticket' } });
  });

  it('long-polls a ticket, completed by default', async () => {
    const r = await app.inject({ method: 'GET', url: '/sessions/s1/tickets/in_1' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ ticketId: 'in_1', state: 'completed' });
    await app.inject({
      method: 'GET',
      url: '/sessions/s1/tickets/in_1?until=delivered&timeoutMs=500',
    });
    expect(backend.calls.at(-1)?.args).toEqual(['s1', 'in_1', 'delivered']);
  });

  it.each([
    ['POST', '/sessions/s1/queue/in_1/move', { position: -1 }],
    ['POST', '/sessions/s1/queue/in_1/move', { position: 1.5 }],
    ['POST', '/sessions/s1/queue/in_1/move', { position: 0, extra: true }],
    ['PATCH', '/sessions/s1/queue/in_1', { text: 7 }],
    ['PUT', '/sessions/s1/queue/order', { orderedInputIds: [] }],
    ['POST', '/sessions/s1/mode', { mode: 'turbo' }],
    ['POST', '/sessions/a.b/mode', { mode: 'plan' }],
    ['DELETE', '/sessions/s*1/queue/in_1', undefined],
    ['GET', '/sessions/s1/tickets/in_1?until=soon', undefined],
    ['GET', '/sessions/s1/tickets/in_1?timeoutMs=-5', undefined],
    ['GET', '/sessions/s1/tickets/in_1?timeoutMs=999999999', undefined],
    ['GET', '/sessions/s1/tickets/in_1?wait=1', undefined],
  ] as const)('refuses %s %s %j with a 400, nothing sent', async (method, url, body) => {
    const r = await app.inject({ method, url, ...(body === undefined ? {} : json(body)) });
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json()).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(backend.calls).toEqual([]);
  });
});
