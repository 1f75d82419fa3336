import {
  ForkRequest,
  ForkResult,
  isCommandPromptReply,
  OpenReply,
  TRANSCRIPT_MAX_BYTES,
} from '@agentwire/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { failureResponse } from './http-error.ts';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import type { QueryBackend } from './query-port.ts';
import { SessionParams, type SessionRouteOptions, send } from './session-routes.ts';
import { COMMAND_RESPONSES, sendCommand } from './tree-routes.ts';

/** The media type of a transcript file (JSON Lines): what an export answers with. */
const JSONL = 'application/jsonl';

/** What an import takes: JSON Lines by either name, or plain text (`curl --data-binary`). */
const IMPORT_TYPES = [JSONL, 'application/x-ndjson', 'text/plain'];

/**
 * Largest import body: a little above the 64 MiB an import takes (0241), so a file over
 * that limit still gets its typed `transcript_too_large` with the size; only a body past
 * this one is Fastify's 413 `body_too_large`.
 */
const IMPORT_BODY_LIMIT = TRANSCRIPT_MAX_BYTES + 1024 * 1024;

/** Seconds to wait before asking again for an export the store has not caught up with. */
const EXPORT_RETRY_AFTER_S = 1;

/** Body of `POST /sessions/import`: the transcript file's text, as it was exported. */
const TranscriptBody = z.string();

/** `POST /sessions/:id/fork` ran: the command reply with the new session in `result`. */
const FORK_RESPONSES = {
  200: COMMAND_RESPONSES[200].extend({ result: ForkResult.loose() }),
  202: COMMAND_RESPONSES[202],
};

/** Settings of the transcript routes: the session routes', and the read side for export. */
export interface TranscriptRouteOptions extends SessionRouteOptions {
  /** The read side (`<prefix>.query.export`); absent: no export route. */
  readonly query?: QueryBackend | undefined;
}

/**
 * Fork, export and import over HTTP (docs/decisions/0240, 0241, 0243):
 * - `POST /sessions/:id/fork` runs the `fork` operation, `/fork <messageId>` with the id
 *   checked first: 200 with the new session (`result.forkedSessionId`, its owner), 202 with
 *   a ticket while a turn runs; refusals map as on the tree routes (404 `unknown_message`);
 * - `GET /sessions/:id/export` answers the transcript file itself (JSON Lines, a
 *   `content-disposition` file name); 503 with `retry-after` while the store still commits
 *   the session's writes (`not_caught_up`), 413 `transcript_too_large`, 404 `not_found`;
 * - `POST /sessions/import` takes the file as its body and answers 201 with the new
 *   session; a file that is not a transcript is 400 `invalid_transcript` naming the line.
 * With tenants, a session made by a fork or an import belongs to the caller's tenant.
 */
export function registerTranscriptRoutes(app: FastifyInstance, o: TranscriptRouteOptions): void {
  const timeout = { timeoutMs: o.requestTimeoutMs };

  app.post(
    '/sessions/:id/fork',
    {
      bodyLimit: o.bodyLimit,
      schema: routeSchema({
        summary: 'Copy the conversation up to a message into a new session (/fork <messageId>)',
        params: SessionParams,
        body: ForkRequest,
        response: FORK_RESPONSES,
      }),
    },
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', ForkRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const result = await o.backend.fork(params.value.id, body.value.messageId, timeout);
      if (result.ok && isCommandPromptReply(result) && o.onCreated !== undefined) {
        const forked = ForkResult.safeParse(result.result);
        if (forked.success) await o.onCreated(request, forked.data.forkedSessionId);
      }
      return sendCommand(reply, result);
    },
  );

  const query = o.query;
  if (query !== undefined) {
    app.get(
      '/sessions/:id/export',
      {
        schema: routeSchema({
          summary: 'The session as a transcript file: JSON Lines, every branch',
          params: SessionParams,
          response: {
            200: {
              description: 'The transcript file: a header line, then one line per message',
              content: { [JSONL]: { schema: z.string() } },
            },
          },
        }),
      },
      async (request, reply) => {
        const params = parseInput('params', SessionParams, request.params);
        if (!params.ok) return reply.code(400).send(params.body);
        const { id } = params.value;
        const result = await query.exportSession(id, timeout);
        if (!result.ok) {
          const { status, body } = failureResponse(result);
          if (result.error.code !== 'not_caught_up') return reply.code(status).send(body);
          return reply.code(503).header('retry-after', String(EXPORT_RETRY_AFTER_S)).send(body);
        }
        return reply
          .code(200)
          .header('content-type', `${JSONL}; charset=utf-8`)
          .header('content-disposition', `attachment; filename="${id}.jsonl"`)
          .send(result.transcript);
      },
    );
  }

  // Its own context: the text parsers hold for this route only (the others take JSON).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(IMPORT_TYPES, { parseAs: 'string' }, (_request, text, done) => {
      done(null, text);
    });
    scope.post(
      '/sessions/import',
      {
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: routeSchema({
          summary: 'Import a transcript file (an export) as a new session',
          body: TranscriptBody,
          consumes: IMPORT_TYPES,
          response: { 201: OpenReply.omit({ ok: true }) },
        }),
      },
      async (request, reply) => {
        const body = parseInput('body', TranscriptBody, request.body);
        if (!body.ok) return reply.code(400).send(body.body);
        // The import writes the whole file before it answers: the long timeout.
        const result = await o.backend.importSession(body.value, { timeoutMs: o.waitTimeoutMs });
        if (result.ok) await o.onCreated?.(request, result.sessionId);
        return send(reply, result, 201);
      },
    );
  });
}
