import type { ApplierContext } from './applier-context.ts';
import type { SessionState } from './session-state.ts';

/** A session waiting too long for its predecessor (issue 5: reported, never skipped). */
export interface StuckSession {
  readonly sessionId: string;
  readonly awaitedSeq: number | undefined;
  readonly waitingMs: number;
  readonly blockedBy: { seq: number; code: string } | undefined;
}

/** Sessions waiting at least `stuckAfterMs` at `now`. */
export function stuckSessions<P>(
  sessions: ReadonlyMap<string, SessionState<P>>,
  now: number,
  stuckAfterMs: number,
): StuckSession[] {
  const out: StuckSession[] = [];
  for (const [sessionId, s] of sessions) {
    if (s.waitingSince === undefined || now - s.waitingSince < stuckAfterMs) continue;
    out.push({
      sessionId,
      awaitedSeq: s.queue.awaited(),
      waitingMs: now - s.waitingSince,
      blockedBy: s.blockedBy,
    });
  }
  return out;
}

/** Logs a warning, once per wait, when a session has waited `stuckAfterMs`. */
export function reportIfStuck<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
  now: number,
): void {
  if (state.reportedStuck || state.waitingSince === undefined) return;
  if (now - state.waitingSince < ctx.options.stuckAfterMs) return;
  state.reportedStuck = true;
  ctx.logger.warn(
    {
      sessionId,
      awaitedSeq: state.queue.awaited(),
      waitingMs: now - state.waitingSince,
      blockedBy: state.blockedBy,
    },
    'projection session stuck waiting for its predecessor',
  );
}
