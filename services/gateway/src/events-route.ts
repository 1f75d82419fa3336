import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { GatewayBackend } from './gateway-port.ts';
import { errorBody } from './http-error.ts';
import { routeSchema } from './openapi.ts';
import { parseInput } from './parse-input.ts';
import type { EncodedFrame } from './session-channel.ts';
import type { SessionFanout } from './session-fanout.ts';
import { SessionParams } from './session-routes.ts';
import type { SseHub } from './sse-hub.ts';
import { SseStream } from './sse-stream.ts';

const SequenceText = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer')
  .transform(Number);

/**
 * Query of `GET /sessions/:id/events`: `after` is the last sequence number the client has;
 * `snapshot=true` starts with a snapshot whatever the base (a reader's `snapshot_needed`).
 */
const EventsQuery = z.strictObject({
  after: SequenceText.optional(),
  snapshot: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
});

/** Settings of the events route. */
export interface EventsRouteOptions {
  readonly backend: GatewayBackend;
  readonly hub: SseHub;
  /** The sessions' shared followers and the clients' frames (docs/decisions/0200). */
  readonly fanout: SessionFanout;
  readonly heartbeatMs: number;
  readonly onFrame?: (frame: EncodedFrame) => void;
}

/**
 * `GET /sessions/:id/events?after=N`: Server-Sent Events replayed from JetStream, then
 * tailed live (R15.1, DESIGN.md "A frontend follows a session"). The base is the
 * `Last-Event-ID` header when present (a browser's reconnect), else `after`, else 0. Frames
 * carry their range and batch the events ready at once; every frame's `id:` is its `toSeq`,
 * so a reconnect gets each later event exactly once; large frames go out as checked
 * fragments (R15.2, R15.3, docs/decisions/0200; `FrameReader` of `@agentwire/contracts`
 * reads them). A base outside the stream's retained window, or `snapshot=true`, gets one
 * `event: snapshot` frame (the projection, `id:` its `asOfSeq`) and the events after it
 * (docs/decisions/0103). Unknown sessions are 404 before the stream starts.
 */
export function registerEventsRoute(app: FastifyInstance, o: EventsRouteOptions): void {
  const schema = routeSchema({
    summary: 'Follow a session (Server-Sent Events)',
    params: SessionParams,
    querystring: EventsQuery,
  });
  app.get('/sessions/:id/events', { schema }, async (request, reply) => {
    const params = parseInput('params', SessionParams, request.params);
    if (!params.ok) return reply.code(400).send(params.body);
    const query = parseInput('query', EventsQuery, request.query);
    if (!query.ok) return reply.code(400).send(query.body);
    const header = request.headers['last-event-id'];
    const lastEventId = parseInput(
      'headers',
      z.strictObject({ 'last-event-id': SequenceText.optional() }),
      header === undefined ? {} : { 'last-event-id': header },
    );
    if (!lastEventId.ok) return reply.code(400).send(lastEventId.body);
    const sessionId = params.value.id;
    const after = lastEventId.value['last-event-id'] ?? query.value.after ?? 0;

    let known: boolean;
    try {
      known = await o.backend.knows(sessionId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return reply
        .code(503)
        .send(errorBody('unavailable', `cannot look up the session: ${message}`));
    }
    if (!known) {
      return reply
        .code(404)
        .send(errorBody('unknown_session', `no session ${sessionId}`, { sessionId }));
    }

    reply.hijack();
    const stream = new SseStream(reply.raw, {
      heartbeatMs: o.heartbeatMs,
      ...(o.onFrame === undefined ? {} : { onFrame: o.onFrame }),
    });
    o.hub.add(stream);
    const frames = o.fanout.follow(sessionId, after, query.value.snapshot ?? false);
    const reason = await stream.run(frames, after);
    request.log.debug({ sessionId, reason }, 'sse stream ended');
    return reply;
  });
}
