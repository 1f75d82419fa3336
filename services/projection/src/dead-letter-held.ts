import type { ApplierContext } from './applier-context.ts';
import type { Delivery } from './delivery.ts';
import type { Drained, Held } from './session-queue.ts';

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

/**
 * Dead-letters what a drain found contradictory: deliveries whose `Aw-Prev-Seq` contradicts
 * the applied sequence `last`, and second events with an applied number (`sequence_conflict`,
 * counted, so a metric shows what the fences of docs/decisions/0110 must make impossible).
 */
export function deadLetterConflicts<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  drained: Pick<Drained<Delivery>, 'conflicts' | 'numberConflicts'>,
  last: number,
): void {
  for (const c of drained.numberConflicts) {
    ctx.stats.sequenceConflicts += 1;
    deadLetterHeld(
      ctx,
      sessionId,
      c,
      'sequence_conflict',
      `event ${c.item.event.id} carries number ${c.seq}, which another event of the session has`,
    );
  }
  for (const c of drained.conflicts) {
    deadLetterHeld(
      ctx,
      sessionId,
      c,
      'prev_seq_conflict',
      `Aw-Prev-Seq ${c.prev} contradicts applied sequence ${last}`,
    );
  }
}
