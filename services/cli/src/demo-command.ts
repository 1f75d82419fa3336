import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import type { SessionEvent } from '@agentwire/contracts';
import { type CliContext, failureError } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { formatEvent } from './format-event.ts';
import { nextTitleJobState, type TitleJobState, titleJobPending } from './title-job-state.ts';

/**
 * The demo's prompt: the scripted model's `two_tools` scenario reads `README.md` (no
 * permission needed) and writes `notes.txt` (asks first), then answers.
 */
const DEMO_PROMPT = '[scenario:two_tools] read the README and write a note';

/** Options of {@link demoCommand}. */
export interface DemoOptions {
  /** How long the turn may take, ms (default 120 s). */
  readonly turnTimeoutMs?: number;
  /** How long to wait for the projection to catch up, ms (default 15 s). */
  readonly projectionTimeoutMs?: number;
  /** After the turn, how long to keep following for a title job's outcome, ms (default 5 s). */
  readonly titleWaitMs?: number;
}

/**
 * `agentwire demo`: opens a session, follows it from 0, prompts with a scripted scenario
 * that uses two tools, answers the permission request with `allow` (R1.4), prints every
 * event as it arrives. When the session generates a title (a `session_title` model request
 * was seen), it keeps following after the turn until the title job settled
 * (`session_title_updated` `generated` or its `model_error`), at most `titleWaitMs`. Then it
 * prints the projection once it has applied the last event printed (R10.2). Returns the
 * session id.
 */
export async function demoCommand(ctx: CliContext, options: DemoOptions = {}): Promise<string> {
  const { client } = ctx;
  const opened = await client.open();
  if (isRuntimeFailure(opened)) throw failureError('open', opened);
  const sid = opened.sessionId;
  ctx.out(ctx.json ? JSON.stringify({ sessionId: sid }) : `session ${sid}`);

  const follower = client.follow(sid, opened.lastSequence);
  let ended: SessionEvent | undefined;
  let title: TitleJobState = 'none';
  let titleTimer: NodeJS.Timeout | undefined;
  const following = (async () => {
    for await (const event of follower) {
      ctx.out(ctx.json ? JSON.stringify(event) : formatEvent(event));
      title = nextTitleJobState(title, event);
      if (event.type === 'permission_requested' && event.payload.requestId !== undefined) {
        const answer = await client.answerPermission(sid, {
          requestId: event.payload.requestId,
          decision: 'allow',
          reason: 'agentwire demo',
        });
        const outcome = answer.ok ? 'allow' : answer.error.code;
        ctx.out(
          ctx.json
            ? JSON.stringify({ answered: event.payload.requestId, outcome })
            : `     -> answered ${event.payload.requestId}: ${outcome}`,
        );
      }
      if (event.type === 'turn_complete' || event.type === 'turn_error') ended = event;
      if (ended === undefined) continue;
      if (!titleJobPending(title)) return;
      // Bounded: a title that was not applied gives no session_title_updated.
      titleTimer ??= setTimeout(() => void follower.stop(), options.titleWaitMs ?? 5_000);
    }
  })();
  following.catch(() => undefined); // awaited below; this only avoids an unhandled rejection
  const stopOnAbort = () => void follower.stop();
  ctx.signal.addEventListener('abort', stopOnAbort, { once: true });
  try {
    const prompt = await client.prompt(
      sid,
      { text: DEMO_PROMPT, wait: true },
      { timeoutMs: options.turnTimeoutMs ?? 120_000 },
    );
    if (isRuntimeFailure(prompt)) throw failureError('prompt', prompt);
    await following;
  } finally {
    clearTimeout(titleTimer);
    ctx.signal.removeEventListener('abort', stopOnAbort);
    await follower.stop();
  }
  if (ended === undefined)
    throw new CliError('interrupted', 'the demo was interrupted', EXIT.failure);
  if (ended.type === 'turn_error') {
    throw new CliError(
      'turn_error',
      `the turn failed: ${ended.payload.error.message}`,
      EXIT.failure,
    );
  }
  const printed = Math.max(ended.sequenceNumber, follower.lastSequence);
  await printProjection(ctx, sid, printed, options.projectionTimeoutMs ?? 15_000);
  return sid;
}

async function printProjection(ctx: CliContext, sid: string, seq: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const snapshot = await ctx.client.projection(sid);
    if (!isRuntimeFailure(snapshot) && snapshot.asOfSeq >= seq) {
      if (ctx.json) {
        ctx.out(JSON.stringify({ asOfSeq: snapshot.asOfSeq, projection: snapshot.projection }));
        return;
      }
      ctx.out(`projection (asOfSeq ${snapshot.asOfSeq}):`);
      ctx.out(JSON.stringify(snapshot.projection, null, 2));
      return;
    }
    if (Date.now() > deadline) {
      const why = isRuntimeFailure(snapshot) ? snapshot.error.message : `at ${snapshot.asOfSeq}`;
      throw new CliError(
        'projection_behind',
        `the projection did not reach ${seq}: ${why}`,
        EXIT.failure,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
