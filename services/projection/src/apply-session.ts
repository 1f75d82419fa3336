import type { ApplierContext } from './applier-context.ts';
import { commitChain } from './commit-chain.ts';
import { deadLetterConflicts } from './dead-letter-held.ts';
import type { KnownRow, SessionState } from './session-state.ts';
import { settleStoreFailure } from './settle-store-failure.ts';

/**
 * One pass over a session (DESIGN.md flow 3, R10.1): reads the row when it is not known,
 * settles held duplicates and conflicts against it, and commits every chain that follows
 * the stored last sequence, re-reading after a lost compare-and-set. Whatever still waits
 * for a missing predecessor stays held, and the session is marked as waiting.
 */
export async function applySession<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
): Promise<void> {
  const now = ctx.options.now();
  state.lastCheck = now;
  state.lastActive = now;
  let reread = false;
  for (;;) {
    if (state.known === undefined) {
      const row = await readRow(ctx, sessionId, state);
      if (row === 'failed') return;
      state.known = row;
    }
    const known = state.known;
    const drained = state.queue.drain(known.last);
    for (const d of drained.duplicates) d.item.ack();
    ctx.stats.duplicates += drained.duplicates.length;
    deadLetterConflicts(ctx, sessionId, drained, known.last);
    if (drained.apply.length === 0) {
      // A notice arrived before the event that follows it: the cached row is stale.
      if (state.queue.size === 0 || reread || state.noticed <= known.last) break;
      reread = true;
      state.known = undefined;
      continue;
    }
    const outcome = await commitChain(ctx, sessionId, state, known, drained.apply);
    if (outcome === 'failed') return;
  }
  if (state.queue.size === 0) {
    state.waitingSince = undefined;
    state.reportedStuck = false;
  } else {
    state.waitingSince ??= now;
  }
}

/** Reads a session's row; on failure its held deliveries are settled and `failed` returned. */
async function readRow<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
): Promise<KnownRow<P> | 'failed'> {
  const started = performance.now();
  ctx.stats.reads += 1;
  try {
    const row = await ctx.options.reader.get(sessionId);
    ctx.stats.readMs += performance.now() - started;
    return row === undefined
      ? { projection: undefined, last: 0 }
      : { projection: row.projection as P, last: row.lastSequence };
  } catch (error) {
    settleStoreFailure(ctx, sessionId, state, state.queue.takeAll(), error);
    return 'failed';
  }
}
