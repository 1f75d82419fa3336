import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { applyDurableEvents } from './apply-durable-events.ts';
import { canonicalDump } from './canonical-dump.ts';
import { applyDurableEvent } from './durable-events.ts';
import { getInput } from './ledger-repository.ts';
import type { Database } from './schema.ts';
import { event, permutations, truncateAll, useStoreTestContext } from './test-support.ts';

const ctx = useStoreTestContext();

const queued = (seq: number, input: string) =>
  event('turn_steer_queued', seq, {
    pendingInputId: 'in1',
    input,
    inputPreview: input,
    inputSize: input.length,
    delivery: 'queue',
    targetTurnId: 't1',
    queueLength: 1,
  });
const removed = (seq: number) =>
  event('turn_steer_discarded', seq, { pendingInputId: 'in1', reason: 'user_removed' });

type Event = ReturnType<typeof queued> | ReturnType<typeof removed>;

/**
 * Applies `events` in every order (or the given ones), each twice, once one at a time (the
 * row oracle) and once as batches of one (the production path), and returns the one row
 * all of them produce.
 */
async function rowOfEveryOrder(
  events: readonly Event[],
  orders: readonly (readonly Event[])[] = permutations(events),
) {
  const dumps = new Set<string>();
  const paths: ((db: Kysely<Database>, e: Event) => Promise<unknown>)[] = [
    (db, e) => applyDurableEvent(db, e),
    (db, e) => applyDurableEvents(db, [e]),
  ];
  for (const apply of paths) {
    for (const order of orders) {
      await truncateAll(ctx.db);
      await ctx.db.transaction().execute(async (trx) => {
        for (const e of [...order, ...order]) await apply(trx, e);
      });
      dumps.add(JSON.stringify(await canonicalDump(ctx.db)));
    }
  }
  expect(dumps.size).toBe(1);
  return getInput(ctx.db, 's1', 'in1');
}

describe('editing a waiting input in the ledger (docs/decisions/0222, R16.4)', () => {
  it('the newest edit wins; the first admission keeps its position, whatever the order', async () => {
    const row = await rowOfEveryOrder([queued(2, 'first'), queued(5, 'second'), queued(4, 'mid')]);
    expect(row).toMatchObject({
      status: 'admitted',
      payload: { text: 'second' },
      payload_seq: 5,
      admitted_seq: 2,
      position: 2,
    });
  });

  it('an edit sequenced after the row closed never applies', async () => {
    // Edits and discards are events of the session's stream, which the worker applies in
    // sequence order: the edit arrives after the close, with or without its admission.
    const [a, close, edit] = [queued(2, 'first'), removed(4), queued(6, 'late')];
    const row = await rowOfEveryOrder(
      [a, close, edit],
      [
        [a, close, edit],
        [close, edit, a],
        [close, a, edit],
      ],
    );
    expect(row).toMatchObject({ status: 'cancelled', payload: { text: 'first' }, payload_seq: 2 });
  });

  it('an edit before the close applies', async () => {
    const row = await rowOfEveryOrder([queued(2, 'first'), queued(3, 'edited'), removed(4)]);
    expect(row).toMatchObject({ status: 'cancelled', payload: { text: 'edited' } });
  });
});
