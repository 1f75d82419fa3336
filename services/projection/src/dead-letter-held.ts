import type { ApplierContext } from './applier-context.ts';
import type { Delivery } from './delivery.ts';
import type { Held } from './session-queue.ts';

/** Dead-letters one held delivery; its session waits at that sequence until repaired. */
export function deadLetterHeld<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  held: Held<Delivery>,
  code: string,
  reason: string,
): void {
  ctx.stats.deadLettered += 1;
  held.item.deadLetter(code, reason);
  ctx.markBlocked(sessionId, held.seq, code);
  ctx.logger.error(
    { sessionId, seq: held.seq, code, reason },
    'projection event dead-lettered; the session waits at this sequence until it is repaired',
  );
}

/** Dead-letters deliveries whose `Aw-Prev-Seq` contradicts the applied sequence `last`. */
export function deadLetterConflicts<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  conflicts: readonly Held<Delivery>[],
  last: number,
): void {
  for (const c of conflicts) {
    deadLetterHeld(
      ctx,
      sessionId,
      c,
      'prev_seq_conflict',
      `Aw-Prev-Seq ${c.prev} contradicts applied sequence ${last}`,
    );
  }
}
