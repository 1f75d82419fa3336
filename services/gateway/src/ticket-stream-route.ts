import type { OutgoingHttpHeaders } from 'node:http';
import { SessionId, type TicketReply } from '@agentwire/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { GatewayBackend } from './gateway-port.ts';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import { send } from './session-routes.ts';

/** `:id` and `:ticketId` of a ticket. */
const TicketParams = z.strictObject({
  id: SessionId.min(1).max(200),
  ticketId: z.string().min(1).max(200),
});

/** How long one wait on the runtime lasts before it is asked again (ms). */
const WAIT_SLICE_MS = 25_000;

const RANK = { accepted: 0, delivered: 1, completed: 2, discarded: 2 } as const;

/** Settings of the ticket stream route. */
export interface TicketStreamOptions {
  readonly backend: GatewayBackend;
  readonly heartbeatMs: number;
}

/**
 * `GET /sessions/:id/tickets/:ticketId/events` (R12.4, docs/decisions/0226, 0235): a
 * submission's ticket as Server-Sent Events, for any client, not only the one that sent
 * it. One `event: ticket` frame with the state now, then one per change (`delivered`, then
 * `completed` with the turn's result, or `discarded`), then the stream ends. An unknown
 * ticket or session is the same 4xx as the long poll, before the stream starts; a failure
 * later is one `event: error` frame, then the end.
 */
export function registerTicketStreamRoute(app: FastifyInstance, o: TicketStreamOptions): void {
  const schema = routeSchema({
    summary: "Follow a submission's ticket (Server-Sent Events)",
    params: TicketParams,
  });
  app.get('/sessions/:id/tickets/:ticketId/events', { schema }, async (request, reply) => {
    const params = parseInput('params', TicketParams, request.params);
    if (!params.ok) return reply.code(400).send(params.body);
    const { id, ticketId } = params.value;
    const first = await o.backend.awaitTicket(id, ticketId, 'delivered', 0);
    if (!first.ok) return send(reply, first);
    reply.hijack();
    const res = reply.raw;
    // Headers the hooks set (CORS) go out with the stream's own.
    const set = Object.entries(reply.getHeaders()).filter(([, v]) => v !== undefined);
    res.writeHead(200, {
      ...(Object.fromEntries(set) as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const heartbeat = setInterval(() => {
      if (!closed) res.write(': heartbeat\n\n');
    }, o.heartbeatMs);
    heartbeat.unref();
    const frame = (ticket: TicketReply) => {
      const { ok: _ok, timedOut: _timedOut, ...body } = ticket;
      res.write(`event: ticket\nid: ${ticket.state}\ndata: ${JSON.stringify(body)}\n\n`);
    };
    try {
      let last: TicketReply = first;
      frame(last);
      for (const until of ['delivered', 'completed'] as const) {
        while (!closed && RANK[last.state] < RANK[until]) {
          const next = await o.backend.awaitTicket(id, ticketId, until, WAIT_SLICE_MS);
          if (!next.ok) {
            res.write(`event: error\ndata: ${JSON.stringify(next.error)}\n\n`);
            return reply;
          }
          if (next.state !== last.state) frame(next);
          last = next;
        }
      }
    } finally {
      clearInterval(heartbeat);
      if (!res.writableEnded) res.end();
    }
    return reply;
  });
}
