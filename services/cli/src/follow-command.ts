import { setTimeout as sleep } from 'node:timers/promises';
import { type CliContext, checkSessionId } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { formatEvent } from './format-event.ts';

/** Options of {@link followCommand}. */
export interface FollowOptions {
  readonly sessionId: string;
  /** The last sequence number already seen; events after it are printed. */
  readonly after: number;
  /** Stop after printing the first event of this type. */
  readonly until?: string;
  /** Wait before resuming after a failed follow, ms (default 1000). */
  readonly retryMs?: number;
}

/**
 * `agentwire follow <sid> [--after N] [--until TYPE]`: prints each event as one line
 * (sequence number, type, summary) as it arrives, replaying first (R15.1). When the follow
 * fails (NATS gone, consumer lost) it resumes after the last number it printed, so no line
 * is printed twice and none is skipped. Ends on Ctrl-C, or after `--until`'s type.
 * Returns the last sequence number printed.
 */
export async function followCommand(ctx: CliContext, options: FollowOptions): Promise<number> {
  checkSessionId(options.sessionId);
  if (!(await ctx.client.knows(options.sessionId))) {
    throw new CliError('unknown_session', `no session ${options.sessionId}`, EXIT.notFound);
  }
  let last = options.after;
  while (!ctx.signal.aborted) {
    const follower = ctx.client.follow(options.sessionId, last);
    const stop = () => void follower.stop();
    ctx.signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const event of follower) {
        ctx.out(formatEvent(event));
        last = event.sequenceNumber;
        if (event.type === options.until) return last;
      }
    } catch (error) {
      if (ctx.signal.aborted) break;
      const message = error instanceof Error ? error.message : String(error);
      ctx.err(`follow interrupted (${message}); resuming after ${last}`);
      await sleep(options.retryMs ?? 1000, undefined, { signal: ctx.signal }).catch(
        () => undefined,
      );
    } finally {
      ctx.signal.removeEventListener('abort', stop);
      await follower.stop();
    }
  }
  return last;
}
