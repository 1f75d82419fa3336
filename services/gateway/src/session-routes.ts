import type { RuntimeResult } from '@agentwire/bus';
import {
  AnswerPermissionRequest,
  EmptyRequest,
  isCommandPromptReply,
  isQueuedPromptReply,
  PromptRequest,
  RenameRequest,
  SessionId,
  SetModeRequest,
} from '@agentwire/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayBackend } from './gateway-port.ts';
import { failureResponse } from './http-error.ts';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import { registerQueueRoutes } from './queue-routes.ts';
import { registerTreeRoutes } from './tree-routes.ts';

/** `:id` of every session route: a session id is one subject token. */
export const SessionParams = z.strictObject({ id: SessionId.min(1).max(200) });
/** `:id` of a session route. */
export type SessionParams = z.infer<typeof SessionParams>;

/** `:id` and `:requestId` of a permission answer. */
const PermissionParams = z.strictObject({
  id: SessionId.min(1).max(200),
  requestId: z.string().min(1).max(200),
});

/** Body of `POST /sessions/:id/permissions/:requestId`. */
const PermissionAnswerBody = AnswerPermissionRequest.omit({ requestId: true });

/** Settings of the session routes. */
export interface SessionRouteOptions {
  readonly backend: GatewayBackend;
  readonly bodyLimit: number;
  readonly requestTimeoutMs: number;
  readonly waitTimeoutMs: number;
  /** Called with each session `POST /sessions` created (the tenant claims it). */
  readonly onCreated?: (request: FastifyRequest, sessionId: string) => Promise<unknown>;
}

/** Sends a backend result: `ok` replies without their `ok` flag, failures mapped to HTTP. */
export function send<T extends { ok: true }>(
  reply: FastifyReply,
  result: RuntimeResult<T>,
  okStatus = 200,
): FastifyReply {
  if (!result.ok) {
    const { status, body } = failureResponse(result);
    return reply.code(status).send(body);
  }
  const { ok: _ok, ...rest } = result;
  return reply.code(okStatus).send(rest);
}

/**
 * The command routes of the gateway (DESIGN.md "Processes": HTTP to the runtime's
 * `aw.rt.*` operations) and the projection read (R10.2). Inputs are parsed with the
 * contracts' schemas; a failure is a 4xx naming the field.
 */
export function registerSessionRoutes(app: FastifyInstance, o: SessionRouteOptions): void {
  const timeout = { timeoutMs: o.requestTimeoutMs };
  const post = (schema: Parameters<typeof routeSchema>[0]) => ({
    bodyLimit: o.bodyLimit,
    schema: routeSchema(schema),
  });

  app.post(
    '/sessions',
    post({ summary: 'Create a session', body: z.strictObject({}) }),
    async (request, reply) => {
      const body = parseInput('body', z.strictObject({}), request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const opened = await o.backend.open(undefined, timeout);
      if (opened.ok) await o.onCreated?.(request, String(opened.sessionId));
      return send(reply, opened, 201);
    },
  );

  app.post(
    '/sessions/:id/open',
    post({ summary: 'Open (load) a session', params: SessionParams, body: z.strictObject({}) }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', z.strictObject({}), request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(reply, await o.backend.open(params.value.id, timeout));
    },
  );

  app.post(
    '/sessions/:id/prompt',
    post({ summary: 'Send a prompt', params: SessionParams, body: PromptRequest }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', PromptRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const wait = body.value.wait === true;
      const result = await o.backend.prompt(params.value.id, body.value, {
        timeoutMs: wait ? o.waitTimeoutMs : o.requestTimeoutMs,
      });
      // `queued` tells a started turn (`turnId`) from an input that waits or is guided into
      // the running turn (`inputId`, `delivery`, R14.3). A slash command run directly
      // (`command`, R12.1) is done when answered: 200.
      const marked = result.ok ? { ...result, queued: isQueuedPromptReply(result) } : result;
      const done = wait || (result.ok && isCommandPromptReply(result));
      return send(reply, marked, done ? 200 : 202);
    },
  );

  app.post(
    '/sessions/:id/interrupt',
    post({ summary: 'Interrupt the running turn', params: SessionParams, body: EmptyRequest }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', EmptyRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const wait = body.value.wait === true;
      const result = await o.backend.interrupt(params.value.id, body.value, {
        timeoutMs: wait ? o.waitTimeoutMs : o.requestTimeoutMs,
      });
      return send(reply, result);
    },
  );

  app.post(
    '/sessions/:id/rename',
    post({ summary: 'Rename a session', params: SessionParams, body: RenameRequest }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', RenameRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(reply, await o.backend.rename(params.value.id, body.value.title, timeout));
    },
  );

  app.post(
    '/sessions/:id/permissions/:requestId',
    post({
      summary: 'Answer a permission request',
      params: PermissionParams,
      body: PermissionAnswerBody,
    }),
    async (request, reply) => {
      const params = parseInput('params', PermissionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', PermissionAnswerBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const answer = { ...body.value, requestId: params.value.requestId };
      return send(reply, await o.backend.answerPermission(params.value.id, answer, timeout));
    },
  );

  app.post(
    '/sessions/:id/mode',
    post({ summary: 'Set what tools may do', params: SessionParams, body: SetModeRequest }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', SetModeRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(reply, await o.backend.setMode(params.value.id, body.value.mode, timeout));
    },
  );

  app.post(
    '/sessions/:id/close',
    post({ summary: 'Close a session', params: SessionParams, body: z.strictObject({}) }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', z.strictObject({}), request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(reply, await o.backend.close(params.value.id, timeout));
    },
  );

  registerQueueRoutes(app, o);
  registerTreeRoutes(app, o);

  app.get(
    '/sessions/:id/projection',
    { schema: routeSchema({ summary: "A session's projection", params: SessionParams }) },
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      return send(reply, await o.backend.projection(params.value.id, timeout));
    },
  );
}
