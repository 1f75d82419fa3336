import { z } from 'zod';

/** Session ids are subject tokens (DESIGN.md "Subjects"): letters, digits, `-`, `_`. */
export const SessionIdParam = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'a session id is letters, digits, "-" or "_"');

/** Request body of the `<prefix>.projection.get` service (DESIGN.md "Subjects"). */
export const ProjectionGetRequest = z.object({ sessionId: SessionIdParam });
/** Parsed {@link ProjectionGetRequest}. */
export type ProjectionGetRequest = z.infer<typeof ProjectionGetRequest>;

/**
 * A stored projection and the last sequence number applied to it (R10.2). A frontend takes
 * it as a snapshot and tails the session from `asOfSeq + 1` (R15.1).
 */
export interface ProjectionSnapshot<P = unknown> {
  readonly projection: P;
  readonly asOfSeq: number;
}

/** Reply of `<prefix>.projection.get`: the snapshot, or a typed refusal. */
export const ProjectionGetReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), projection: z.unknown(), asOfSeq: z.number().int().min(0) }),
  z.object({
    ok: z.literal(false),
    error: z.enum(['not_found', 'invalid_request', 'unavailable']),
    message: z.string(),
  }),
]);
/** Parsed {@link ProjectionGetReply}. */
export type ProjectionGetReply = z.infer<typeof ProjectionGetReply>;

/** Reads one session's stored projection; `undefined` when the session has none. */
export type GetProjection = (sessionId: string) => Promise<ProjectionSnapshot | undefined>;

/**
 * Answers one projection query (R10.2, R15.1) from raw request data: validates it, reads
 * the store through `get`, and returns a typed reply, never throwing for a bad request or
 * an unknown session. Shared by the NATS service and tests.
 */
export async function answerProjectionGet(
  data: unknown,
  get: GetProjection,
): Promise<ProjectionGetReply> {
  const request = ProjectionGetRequest.safeParse(data);
  if (!request.success) {
    return {
      ok: false,
      error: 'invalid_request',
      message: request.error.issues[0]?.message ?? 'invalid request',
    };
  }
  try {
    const snapshot = await get(request.data.sessionId);
    if (snapshot === undefined) {
      return {
        ok: false,
        error: 'not_found',
        message: `no projection for session ${request.data.sessionId}`,
      };
    }
    return { ok: true, projection: snapshot.projection, asOfSeq: snapshot.asOfSeq };
  } catch (error) {
    return {
      ok: false,
      error: 'unavailable',
      message: error instanceof Error ? error.message : String(error),
    };
  }
}
