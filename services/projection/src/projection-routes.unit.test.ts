import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { answerProjectionGet, type GetProjection } from './projection-query.ts';
import { registerProjectionRoutes } from './projection-routes.ts';
import { RebuildJobs, type RebuildProgress } from './rebuild-jobs.ts';

const stored: GetProjection = async (id) =>
  id === 'known' ? { projection: { id: 'known', turnCount: 2 }, asOfSeq: 17 } : undefined;

function build(rebuilds?: RebuildJobs) {
  const app = Fastify();
  registerProjectionRoutes(
    app,
    rebuilds === undefined ? { getProjection: stored } : { getProjection: stored, rebuilds },
  );
  return app;
}

describe('GET /sessions/:id/projection', () => {
  it('returns the projection with asOfSeq', async () => {
    const res = await build().inject({ method: 'GET', url: '/sessions/known/projection' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ projection: { id: 'known', turnCount: 2 }, asOfSeq: 17 });
  });

  it('answers 404 with a clear error for an unknown session', async () => {
    const res = await build().inject({ method: 'GET', url: '/sessions/nope/projection' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'session_not_found',
      message: 'no projection for session nope',
    });
  });

  it('answers 400 for an id that cannot be a session id', async () => {
    const res = await build().inject({ method: 'GET', url: '/sessions/a.b*/projection' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_session_id');
  });
});

describe('answerProjectionGet (the NATS service handler)', () => {
  it('replies ok, not_found, invalid_request and unavailable', async () => {
    expect(await answerProjectionGet({ sessionId: 'known' }, stored)).toEqual({
      ok: true,
      projection: { id: 'known', turnCount: 2 },
      asOfSeq: 17,
    });
    expect(await answerProjectionGet({ sessionId: 'x' }, stored)).toMatchObject({
      ok: false,
      error: 'not_found',
    });
    expect(await answerProjectionGet({ session: 'x' }, stored)).toMatchObject({
      ok: false,
      error: 'invalid_request',
    });
    const failing: GetProjection = async () => {
      throw new Error('db down');
    };
    expect(await answerProjectionGet({ sessionId: 'x' }, failing)).toEqual({
      ok: false,
      error: 'unavailable',
      message: 'db down',
    });
  });
});

describe('rebuild routes', () => {
  it('starts a job and reports its progress until done', async () => {
    let finish: (p: RebuildProgress) => void = () => {};
    let report: (p: RebuildProgress) => void = () => {};
    const jobs = new RebuildJobs(
      (_sid, onProgress) => {
        report = onProgress;
        return new Promise((resolve) => {
          finish = resolve;
        });
      },
      () => 'job-1',
      () => 1000,
    );
    const app = build(jobs);
    const started = await app.inject({
      method: 'POST',
      url: '/rebuild',
      payload: { sessionId: 's1' },
    });
    expect(started.statusCode).toBe(202);
    expect(started.json().job).toMatchObject({ id: 'job-1', sessionId: 's1', state: 'running' });
    report({ eventsRead: 5, eventsTotal: 10, sessionsWritten: 0, sessionsTotal: 1 });
    const mid = await app.inject({ method: 'GET', url: '/rebuild/job-1' });
    expect(mid.json().job).toMatchObject({ eventsRead: 5, state: 'running' });
    finish({ eventsRead: 10, eventsTotal: 10, sessionsWritten: 1, sessionsTotal: 1 });
    await jobs.settle();
    const done = await app.inject({ method: 'GET', url: '/rebuild/job-1' });
    expect(done.json().job).toMatchObject({
      eventsRead: 10,
      sessionsWritten: 1,
      state: 'done',
      finishedAt: 1000,
    });
    expect((await app.inject({ method: 'GET', url: '/rebuild/other' })).statusCode).toBe(404);
    expect(
      (await app.inject({ method: 'POST', url: '/rebuild', payload: { sessionId: 'a b' } }))
        .statusCode,
    ).toBe(400);
  });
});
