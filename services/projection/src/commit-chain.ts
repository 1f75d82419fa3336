import type { ApplierContext } from './applier-context.ts';
import { deadLetterHeld } from './dead-letter-held.ts';
import type { Delivery } from './delivery.ts';
import type { Held } from './session-queue.ts';
import type { KnownRow, SessionState } from './session-state.ts';
import { settleStoreFailure } from './settle-store-failure.ts';

/**
 * Reduces one chain, writes it with compare-and-set, and settles its deliveries. `retry`:
 * another writer moved the row first; the chain is held again and the row must be re-read.
 */
export async function commitChain<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
  known: KnownRow<P>,
  chain: readonly Held<Delivery>[],
): Promise<'ok' | 'retry' | 'failed'> {
  const { projection, done } = reduceChain(ctx, sessionId, state, known.projection, chain);
  const last = done.at(-1)?.seq;
  if (last === undefined || projection === undefined) return 'ok';
  let written: boolean;
  const started = performance.now();
  try {
    written = await ctx.options.writer.write({
      sessionId,
      expected: known.last,
      projection,
      lastSequence: last,
    });
    ctx.stats.writeMs += performance.now() - started;
  } catch (error) {
    settleStoreFailure(ctx, sessionId, state, [...done, ...state.queue.takeAll()], error);
    return 'failed';
  }
  if (!written) {
    ctx.stats.casConflicts += 1;
    state.queue.restore(done);
    state.known = undefined;
    return 'retry';
  }
  settleCommitted(ctx, sessionId, state, done, projection, last);
  return 'ok';
}

/**
 * Folds the chain into `projection`. A reducer failure dead-letters that delivery, puts the
 * rest of the chain back, and stops: `done` is what was reduced before it.
 */
function reduceChain<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
  from: P | undefined,
  chain: readonly Held<Delivery>[],
): { projection: P | undefined; done: readonly Held<Delivery>[] } {
  let projection = from;
  let applied = 0;
  for (const held of chain) {
    try {
      projection = ctx.options.reduce(projection, held.item.event);
      applied += 1;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      deadLetterHeld(ctx, sessionId, held, 'reducer_failed', reason);
      state.queue.restore(chain.slice(applied + 1));
      break;
    }
  }
  return { projection, done: chain.slice(0, applied) };
}

/** After a successful write: caches the row, acks the chain, and counts its lag. */
function settleCommitted<P>(
  ctx: ApplierContext<P>,
  sessionId: string,
  state: SessionState<P>,
  done: readonly Held<Delivery>[],
  projection: P,
  last: number,
): void {
  state.known = { projection, last };
  const now = ctx.options.now();
  for (const held of done) {
    held.item.ack();
    ctx.stats.lagMs.push(now - held.item.storedAt);
  }
  if (ctx.stats.lagMs.length > 100_000) ctx.stats.lagMs.splice(0, 50_000);
  ctx.stats.applied += done.length;
  ctx.stats.commits += 1;
  state.blockedBy = undefined;
  state.waitingSince = undefined;
  ctx.options.onCommitted?.(sessionId, last);
}
