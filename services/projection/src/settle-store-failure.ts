import { classifyPgError } from '@agentwire/store';
import type { ApplierContext } from './applier-context.ts';
import { deadLetterHeld } from './dead-letter-held.ts';
import type { Delivery } from './delivery.ts';
import type { Held } from './session-queue.ts';
import type { SessionState } from './session-state.ts';

/**
 * Settles the deliveries a failed row read or write had taken: a retryable error keeps them
 * held for the next re-check; otherwise each is naked, or dead-lettered once it has been
 * delivered `maxDeliver` times.
 */
export function settleStoreFailure<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
  held: readonly Held<Delivery>[],
  error: unknown,
): void {
  ctx.stats.storeErrors += 1;
  state.known = undefined;
  const { retryable, kind } = classifyPgError(error);
  ctx.logger.error({ err: error, sessionId, retryable, kind }, 'projection store failed');
  if (retryable) {
    // Kept, not naked: a nak would drop the forwarded copies (their holders wait for a
    // notice) and bring the broker's copies back as redeliveries to hold and forward again.
    // The re-check retries after `recheckMs`; `holdMs` still bounds how long they stay.
    state.queue.restore(held);
    state.lastCheck = ctx.options.now();
    state.waitingSince ??= state.lastCheck;
    return;
  }
  for (const h of held) {
    if (!retryable && h.item.deliveryCount >= ctx.options.maxDeliver) {
      deadLetterHeld(
        ctx,
        sessionId,
        h,
        `store_${kind}`,
        error instanceof Error ? error.message : String(error),
      );
    } else {
      h.item.nak(ctx.options.gapNakDelayMs);
    }
  }
}
