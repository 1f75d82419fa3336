import type { ApplierContext } from './applier-context.ts';
import type { SessionState } from './session-state.ts';

/** Deliveries held in memory across sessions. */
export function countHeld<P>(sessions: ReadonlyMap<string, SessionState<P>>): number {
  let n = 0;
  for (const s of sessions.values()) n += s.queue.size;
  return n;
}

/** Marks every held delivery as in progress, so the broker does not redeliver it. */
export function keepHeldAlive<P>(sessions: ReadonlyMap<string, SessionState<P>>): void {
  for (const state of sessions.values())
    state.queue.forEach((h) => {
      h.item.working();
    });
}

/** Naks (with the gap delay) a session's deliveries held since before `now - holdMs`. */
export function nakExpired<P>(ctx: ApplierContext<P>, state: SessionState<P>, now: number): void {
  const expired = state.queue.takeOlderThan(now - ctx.options.holdMs);
  for (const held of expired) held.item.nak(ctx.options.gapNakDelayMs);
  ctx.stats.gapNaks += expired.length;
}

/** Naks the newest held events of the fullest sessions while more than `maxHeld` are held. */
export function shedHeld<P>(
  ctx: ApplierContext<P>,
  sessions: ReadonlyMap<string, SessionState<P>>,
): void {
  let excess = countHeld(sessions) - ctx.options.maxHeld;
  if (excess <= 0) return;
  const fullest = [...sessions.values()].sort((a, b) => b.queue.size - a.queue.size);
  for (const state of fullest) {
    if (excess <= 0) break;
    const all = state.queue.takeAll().sort((a, b) => a.seq - b.seq);
    const keep = Math.max(0, all.length - excess);
    state.queue.restore(all.slice(0, keep));
    for (const held of all.slice(keep)) held.item.nak(ctx.options.gapNakDelayMs);
    ctx.stats.gapNaks += all.length - keep;
    excess -= all.length - keep;
  }
}
