import { type ProjectionGetReply, ProjectionGetRequest } from '@agentwire/contracts';

/**
 * A session id as the HTTP routes accept it: the same rule as the `projection.get` request
 * of `@agentwire/contracts` (a subject token, 1 to 200 characters; DESIGN.md "Subjects").
 */
export const SessionIdParam = ProjectionGetRequest.shape.sessionId;

/**
 * A stored projection and the last sequence number applied to it (R10.2). A frontend takes
 * it as a snapshot and tails the session from `asOfSeq + 1` (R15.1).
 */
interface ProjectionSnapshot<P = unknown> {
  readonly projection: P;
  readonly asOfSeq: number;
}

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
  // The reply and request shapes are the contracts' (runtime-protocol.ts), which the gateway,
  // the CLI and RuntimeClient parse.
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
