import type { FastifyInstance } from 'fastify';
import { type GetProjection, SessionIdParam } from './projection-query.ts';
import type { RebuildJobs } from './rebuild-jobs.ts';

/** What the projection routes need; injected so that tests use `app.inject()` without servers. */
export interface ProjectionRoutesOptions {
  readonly getProjection: GetProjection;
  /** Rebuild jobs; routes under `/rebuild` exist only when given. */
  readonly rebuilds?: RebuildJobs;
}

/**
 * Registers the projection's HTTP routes (issue 5, R10.2, R15.1):
 * - `GET /sessions/:id/projection` -> `{ projection, asOfSeq }`; 400 for an invalid id,
 *   404 for a session without a projection.
 * - `POST /rebuild` with `{ sessionId? }` -> 202 `{ job }` (one session, or all);
 *   `GET /rebuild/:jobId` -> the job's progress.
 */
export function registerProjectionRoutes(
  app: FastifyInstance,
  options: ProjectionRoutesOptions,
): void {
  app.get<{ Params: { id: string } }>('/sessions/:id/projection', async (request, reply) => {
    const id = SessionIdParam.safeParse(request.params.id);
    if (!id.success) {
      reply.code(400);
      return {
        error: 'invalid_session_id',
        message: id.error.issues[0]?.message ?? 'invalid session id',
      };
    }
    const snapshot = await options.getProjection(id.data);
    if (snapshot === undefined) {
      reply.code(404);
      return { error: 'session_not_found', message: `no projection for session ${id.data}` };
    }
    return { projection: snapshot.projection, asOfSeq: snapshot.asOfSeq };
  });

  const rebuilds = options.rebuilds;
  if (rebuilds === undefined) return;
  app.post<{ Body: { sessionId?: unknown } | undefined }>('/rebuild', async (request, reply) => {
    const raw = request.body?.sessionId;
    let sessionId: string | undefined;
    if (raw !== undefined) {
      const id = SessionIdParam.safeParse(raw);
      if (!id.success) {
        reply.code(400);
        return {
          error: 'invalid_session_id',
          message: id.error.issues[0]?.message ?? 'invalid session id',
        };
      }
      sessionId = id.data;
    }
    const job = rebuilds.start(sessionId);
    reply.code(202);
    return { job };
  });
  app.get<{ Params: { jobId: string } }>('/rebuild/:jobId', async (request, reply) => {
    const job = rebuilds.get(request.params.jobId);
    if (job === undefined) {
      reply.code(404);
      return { error: 'job_not_found', message: `no rebuild job ${request.params.jobId}` };
    }
    return { job };
  });
}
