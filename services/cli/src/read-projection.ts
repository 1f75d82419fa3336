import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import { SessionProjection } from '@agentwire/contracts';
import { type CliContext, checkSessionId, failureError } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';

/** The session's projection and the number it is as of, read for command `what`. */
export async function readProjection(
  ctx: CliContext,
  what: string,
  sid: string,
): Promise<{ asOfSeq: number; projection: SessionProjection }> {
  checkSessionId(sid);
  const snapshot = await ctx.client.projection(sid);
  if (isRuntimeFailure(snapshot)) throw failureError(what, snapshot);
  const parsed = SessionProjection.safeParse(snapshot.projection);
  if (!parsed.success) {
    throw new CliError(
      'invalid_reply',
      `${what}: the projection of ${sid} has an unknown shape`,
      EXIT.failure,
    );
  }
  return { asOfSeq: snapshot.asOfSeq, projection: parsed.data };
}
