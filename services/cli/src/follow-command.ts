import { setTimeout as sleep } from 'node:timers/promises';
import { isBaseExpired } from '@agentwire/bus/outcomes';
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
 * is printed twice and none is skipped. When the stream no longer holds the events after
 * that number (they aged out, R15.1's expired base) it says which ones are gone and goes on
 * from the first it still holds. Ends on Ctrl-C, or after `--until`'s type.
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
        ctx.out(ctx.json ? JSON.stringify(event) : formatEvent(event));
        last = event.sequenceNumber;
        if (event.type === options.until) return last;
      }
    } catch (error) {
      if (ctx.signal.aborted) break;
      if (isBaseExpired(error)) {
        const { afterSequence, firstAvailableSequence } = error.expiredBase;
        ctx.err(
          `events ${afterSequence + 1}..${firstAvailableSequence - 1} are no longer retained; ` +
            `continuing from ${firstAvailableSequence} (the projection has the state: ` +
            `agentwire projection ${options.sessionId})`,
        );
        last = firstAvailableSequence - 1;
        continue;
      }
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
