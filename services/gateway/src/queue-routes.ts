import {
  type MoveInputRequest,
  ReorderInputsRequest,
  SessionId,
  SetQueueModesRequest,
  TICKET_WAIT_MAX_MS,
} from '@agentwire/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import { SessionParams, type SessionRouteOptions, send } from './session-routes.ts';

/** `:id` and `:inputId` of a route on one waiting input. */
const InputParams = z.strictObject({
  id: SessionId.min(1).max(200),
  inputId: z.string().min(1).max(200),
});

/** Body of `POST /sessions/:id/queue/:inputId/move`. */
const MoveBody = z.strictObject({
  position: z.number().int().min(0),
}) satisfies z.ZodType<Omit<MoveInputRequest, 'inputId'>>;

/** Body of `PATCH /sessions/:id/queue/:inputId`. */
const EditBody = z.strictObject({ text: z.string() });

/** `:id` and `:ticketId` of a ticket. */
const TicketParams = z.strictObject({
  id: SessionId.min(1).max(200),
  ticketId: z.string().min(1).max(200),
});

/** Query of `GET /sessions/:id/tickets/:ticketId`: what to wait for, and how long. */
const TicketQuery = z.strictObject({
  until: z.enum(['delivered', 'completed']).default('completed'),
  timeoutMs: z.coerce.number().int().min(0).max(TICKET_WAIT_MAX_MS).default(30_000),
});

/** An empty body (`{}`), as the other bodiless operations take. */
const NoBody = z.strictObject({});

/**
 * The queue of waiting inputs (R14.3, issue 11 item 6), one route per runtime operation;
 * each consults the queue as it is now (R10.3): an input that left is 404
 * `input_not_pending`, a position past the last 400 `position_out_of_range`. The list
 * itself is the projection's `pendingSteerInputs` (`GET /sessions/:id/projection`).
 */
export function registerQueueRoutes(app: FastifyInstance, o: SessionRouteOptions): void {
  const timeout = { timeoutMs: o.requestTimeoutMs };
  const withBody = (schema: Parameters<typeof routeSchema>[0]) => ({
    bodyLimit: o.bodyLimit,
    schema: routeSchema(schema),
  });

  app.get(
    '/sessions/:id/tickets/:ticketId',
    {
      schema: routeSchema({
        summary: 'Wait until a submission is delivered or completed (a long poll)',
        params: TicketParams,
        querystring: TicketQuery,
      }),
    },
    async (request, reply) => {
      const params = parseInput('params', TicketParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const query = parseInput('query', TicketQuery, request.query);
      if (!query.ok) return reply.code(400).send(query.body);
      const { id, ticketId } = params.value;
      const { until, timeoutMs } = query.value;
      return send(reply, await o.backend.awaitTicket(id, ticketId, until, timeoutMs));
    },
  );

  app.delete(
    '/sessions/:id/queue/:inputId',
    { schema: routeSchema({ summary: 'Remove a waiting input', params: InputParams }) },
    async (request, reply) => {
      const params = parseInput('params', InputParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const { id, inputId } = params.value;
      return send(reply, await o.backend.removeInput(id, inputId, timeout));
    },
  );

  app.patch(
    '/sessions/:id/queue/:inputId',
    withBody({ summary: "Edit a waiting input's text", params: InputParams, body: EditBody }),
    async (request, reply) => {
      const params = parseInput('params', InputParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', EditBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const { id, inputId } = params.value;
      return send(reply, await o.backend.editInput(id, inputId, body.value.text, timeout));
    },
  );

  app.post(
    '/sessions/:id/queue/:inputId/move',
    withBody({
      summary: 'Move a waiting input to a position',
      params: InputParams,
      body: MoveBody,
    }),
    async (request, reply) => {
      const params = parseInput('params', InputParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', MoveBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const { id, inputId } = params.value;
      return send(reply, await o.backend.moveInput(id, inputId, body.value.position, timeout));
    },
  );

  app.put(
    '/sessions/:id/queue/order',
    withBody({
      summary: 'Move waiting inputs to the front, in this order',
      params: SessionParams,
      body: ReorderInputsRequest,
    }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', ReorderInputsRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const { id } = params.value;
      return send(reply, await o.backend.reorderInputs(id, body.value.orderedInputIds, timeout));
    },
  );

  app.put(
    '/sessions/:id/queue/modes',
    withBody({
      summary: 'Set how the queue hands inputs over (lane modes, auto-drain)',
      params: SessionParams,
      body: SetQueueModesRequest,
    }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', SetQueueModesRequest, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(reply, await o.backend.setQueueModes(params.value.id, body.value, timeout));
    },
  );

  app.post(
    '/sessions/:id/queue/clear',
    withBody({ summary: 'Clear every waiting input', params: SessionParams, body: NoBody }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', NoBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      return send(reply, await o.backend.clearInputs(params.value.id, timeout));
    },
  );
}
