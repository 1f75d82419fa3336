import type { RuntimeResult } from '@agentwire/bus';
import {
  ArchiveReply,
  DeleteReply,
  HistoryReply,
  ListSessionsReply,
  QueryCursor,
  QueryLimit,
  QuerySessionId,
} from '@agentwire/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBody, failureResponse } from './http-error.ts';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import type { QueryBackend } from './query-port.ts';
import { SessionParams } from './session-routes.ts';

/** A whole number in a query string, then checked by `then` (a limit, a sequence number). */
const numberText = <T extends z.ZodType<number, number>>(then: T) =>
  z
    .string()
    .regex(/^-?\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(then);

const booleanText = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Query of `GET /sessions`: the list filters of `list_sessions`; an unknown one is 400. */
const SessionsQuery = z.strictObject({
  directory: z.string().min(1).max(4096).optional(),
  parentId: QuerySessionId.optional(),
  taskType: z.string().min(1).max(200).optional(),
  archived: booleanText.optional(),
  limit: numberText(QueryLimit).optional(),
  cursor: QueryCursor.optional(),
});

/** Query of `GET /sessions/:id/history`. */
const HistoryQuery = z
  .strictObject({
    limit: numberText(QueryLimit).optional(),
    cursor: QueryCursor.optional(),
    from: z.enum(['start', 'end']).optional(),
    asOfSeq: numberText(z.number().min(0, 'must not be negative')).optional(),
  })
  .refine((q) => q.cursor === undefined || q.from === undefined, {
    message: 'cursor and from exclude each other: a cursor already says where to start',
    path: ['from'],
  });

/** Body of `POST /sessions/:id/archive`: `{ archived: false }` restores the session. */
const ArchiveBody = z.strictObject({ archived: z.boolean().optional() });

/** HTTP status of the read side's own codes (the others are the runtime's, http-error.ts). */
const QUERY_STATUS: Readonly<Record<string, number>> = {
  bad_cursor: 400,
  session_active: 409,
  not_caught_up: 409,
};

/** Settings of the read-side routes. */
export interface QueryRouteOptions {
  readonly query: QueryBackend;
  readonly bodyLimit: number;
  readonly requestTimeoutMs: number;
  /**
   * With tenants (0146): which of these session ids the caller's tenant owns. A listed page
   * keeps only those, so a page can hold fewer than `limit` sessions; `nextCursor` still
   * pages on.
   */
  readonly visible?: (request: FastifyRequest, ids: readonly string[]) => Promise<Set<string>>;
}

function send<T extends { ok: true }>(reply: FastifyReply, result: RuntimeResult<T>): FastifyReply {
  if (!result.ok) {
    const { status, body } = failureResponse(result);
    return reply.code(QUERY_STATUS[result.error.code] ?? status).send(body);
  }
  const { ok: _ok, ...rest } = result;
  return reply.send(rest);
}

/**
 * The read side over HTTP (DESIGN.md "The read side"): the session list, a session's
 * history, archive and delete, each one `<prefix>.query.*` request. Inputs are parsed with
 * the contracts' schemas, so a bad one is a 400 naming the field before any request.
 */
export function registerQueryRoutes(app: FastifyInstance, o: QueryRouteOptions): void {
  const timeout = { timeoutMs: o.requestTimeoutMs };

  const listSchema = routeSchema({
    summary: 'List sessions, most recently updated first',
    querystring: SessionsQuery,
    response: { 200: ListSessionsReply.omit({ ok: true }) },
  });
  app.get('/sessions', { schema: listSchema }, async (request, reply) => {
    const query = parseInput('query', SessionsQuery, request.query);
    if (!query.ok) return reply.code(400).send(query.body);
    const result = await o.query.listSessions(query.value, timeout);
    if (!result.ok || o.visible === undefined) return send(reply, result);
    const mine = await o.visible(
      request,
      result.sessions.map((s) => s.id),
    );
    return send(reply, { ...result, sessions: result.sessions.filter((s) => mine.has(s.id)) });
  });

  const historySchema = routeSchema({
    summary: "A page of a session's messages with their parts",
    params: SessionParams,
    querystring: HistoryQuery,
    response: { 200: HistoryReply.omit({ ok: true }) },
  });
  app.get('/sessions/:id/history', { schema: historySchema }, async (request, reply) => {
    const params = parseInput('params', SessionParams, request.params);
    if (!params.ok) return reply.code(400).send(params.body);
    const query = parseInput('query', HistoryQuery, request.query);
    if (!query.ok) return reply.code(400).send(query.body);
    return send(
      reply,
      await o.query.history({ sessionId: params.value.id, ...query.value }, timeout),
    );
  });

  const archiveSchema = routeSchema({
    summary: 'Archive or restore a session',
    params: SessionParams,
    body: ArchiveBody,
    response: { 200: ArchiveReply.omit({ ok: true }) },
  });
  app.post(
    '/sessions/:id/archive',
    { bodyLimit: o.bodyLimit, schema: archiveSchema },
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', ArchiveBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(
        reply,
        await o.query.archive({ sessionId: params.value.id, ...body.value }, timeout),
      );
    },
  );

  const deleteSchema = routeSchema({
    summary: 'Delete a session: its rows and its events',
    params: SessionParams,
    response: { 200: DeleteReply.omit({ ok: true }) },
  });
  app.delete(
    '/sessions/:id',
    { bodyLimit: o.bodyLimit, schema: deleteSchema },
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      if (request.body !== undefined && request.body !== null && request.body !== '') {
        return reply
          .code(400)
          .send(errorBody('invalid_request', 'DELETE /sessions/:id takes no body'));
      }
      return send(reply, await o.query.delete(params.value.id, timeout));
    },
  );
}
