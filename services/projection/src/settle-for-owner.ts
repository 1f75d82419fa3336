import type { ApplierContext } from './applier-context.ts';
import { deadLetterConflicts } from './dead-letter-held.ts';
import type { SessionState } from './session-state.ts';

/**
 * For a session another instance owns (docs/decisions/0063): acks what the owner's commit
 * up to `last` covered; the chain after `last` stays held for the owner.
 */
export function settleForOwner<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
  last: number,
): void {
  state.known = undefined;
  const drained = state.queue.drain(last);
  state.queue.restore(drained.apply);
  for (const d of drained.duplicates) d.item.ack();
  ctx.stats.ackedForOwner += drained.duplicates.length;
  if (drained.duplicates.length > 0) state.lastCheck = ctx.options.now();
  deadLetterConflicts(ctx, sessionId, drained, last);
}
