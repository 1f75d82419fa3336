import type { RuntimeResult } from '@agentwire/bus';
import {
  CommandPromptReply,
  isCommandPromptReply,
  QueuedPromptReply,
  RewindRequest,
  type SessionCommandReply,
  TreeRequest,
} from '@agentwire/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import { SessionParams, type SessionRouteOptions, send } from './session-routes.ts';

/** Body of `POST /sessions/:id/rewind`: the checkpoint id or message id to go back to. */
const RewindBody = RewindRequest.required();

/** Body of `POST /sessions/:id/tree`: the message, of any branch, to make the leaf. */
const MoveBody = TreeRequest.required();

/**
 * What the routes of a session command answer (here, and the fork of transcript-routes.ts):
 * 200 with the command's `result` when it ran, 202 with its ticket (`inputId`) when it
 * waits behind the running turn; `queued` tells them apart, as on
 * `POST /sessions/:id/prompt`.
 */
export const COMMAND_RESPONSES = {
  200: CommandPromptReply.omit({ ok: true }).extend({ queued: z.literal(false) }),
  202: QueuedPromptReply.omit({ ok: true }).extend({ queued: z.literal(true) }),
};

/** Sends a session command's reply: 200 when it ran, 202 `queued` with its ticket. */
export function sendCommand(
  reply: FastifyReply,
  result: RuntimeResult<SessionCommandReply>,
): FastifyReply {
  if (!result.ok) return send(reply, result);
  const ran = isCommandPromptReply(result);
  return send(reply, { ...result, queued: !ran }, ran ? 200 : 202);
}

/**
 * The session tree and its checkpoints (docs/decisions/0225, 0239, 0242), one route per
 * use of the `rewind` and `tree` operations, which are `/rewind` and `/tree` with their ids
 * checked first: a bad id is 400 `invalid_request` naming the field, and the runtime's
 * refusals map as everywhere (404 `unknown_checkpoint`, `unknown_message`; 409
 * `checkpoint_not_on_branch`, `nothing_to_rewind`, `turn_in_progress`). While a turn runs,
 * a listing waits in the queue too (202), like the command typed.
 */
export function registerTreeRoutes(app: FastifyInstance, o: SessionRouteOptions): void {
  const timeout = { timeoutMs: o.requestTimeoutMs };
  const withBody = (schema: Parameters<typeof routeSchema>[0]) => ({
    bodyLimit: o.bodyLimit,
    schema: routeSchema(schema),
  });

  app.get(
    '/sessions/:id/checkpoints',
    {
      schema: routeSchema({
        summary: 'List the checkpoints in force on the active branch (/rewind)',
        params: SessionParams,
        response: COMMAND_RESPONSES,
      }),
    },
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      return sendCommand(reply, await o.backend.rewind(params.value.id, undefined, timeout));
    },
  );

  app.post(
    '/sessions/:id/rewind',
    withBody({
      summary: 'Put files and conversation back to a checkpoint or a message (/rewind <target>)',
      params: SessionParams,
      body: RewindBody,
      response: COMMAND_RESPONSES,
    }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', RewindBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const { id } = params.value;
      return sendCommand(reply, await o.backend.rewind(id, body.value.target, timeout));
    },
  );

  app.get(
    '/sessions/:id/tree',
    {
      schema: routeSchema({
        summary: "List the conversation's branches and its leaf (/tree)",
        params: SessionParams,
        response: COMMAND_RESPONSES,
      }),
    },
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      return sendCommand(reply, await o.backend.tree(params.value.id, undefined, timeout));
    },
  );

  app.post(
    '/sessions/:id/tree',
    withBody({
      summary: 'Make a message of any branch the leaf (/tree <messageId>)',
      params: SessionParams,
      body: MoveBody,
      response: COMMAND_RESPONSES,
    }),
    async (request, reply) => {
      const params = parseInput('params', SessionParams, request.params);
      if (!params.ok) return reply.code(400).send(params.body);
      const body = parseInput('body', MoveBody, request.body);
      if (!body.ok) return reply.code(400).send(body.body);
      const { id } = params.value;
      return sendCommand(reply, await o.backend.tree(id, body.value.messageId, timeout));
    },
  );
}
