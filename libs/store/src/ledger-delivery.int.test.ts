import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { canonicalDump } from './canonical-dump.ts';
import { applyDurableEvent } from './durable-events.ts';
import { getInput } from './ledger-repository.ts';
import { saveUserMessage } from './messages-repository.ts';
import type { Database } from './schema.ts';
import { event, permutations, truncateAll, useStoreTestContext } from './test-support.ts';

const ctx = useStoreTestContext();

type Write = (db: Kysely<Database>) => Promise<unknown>;
type Mode = 'startNow' | 'guide' | 'queue';

const queued =
  (seq: number, delivery: Mode = 'guide'): Write =>
  (db) =>
    applyDurableEvent(
      db,
      event('turn_steer_queued', seq, {
        pendingInputId: 'in1',
        input: 'do it',
        inputPreview: 'do it',
        inputSize: 5,
        delivery,
        targetTurnId: 't1',
        queueLength: 1,
      }),
    );
const changed =
  (seq: number, admittedDelivery: Mode): Write =>
  (db) =>
    applyDurableEvent(
      db,
      event('turn_steer_delivery_changed', seq, {
        pendingInputId: 'in1',
        requestedDelivery: 'guide',
        admittedDelivery,
        fallbackReasonCode: 'turn_not_steerable',
      }),
    );
const removed =
  (seq: number): Write =>
  (db) =>
    applyDurableEvent(
      db,
      event('turn_steer_discarded', seq, { pendingInputId: 'in1', reason: 'user_removed' }),
    );
const promoted =
  (sequence?: number): Write =>
  (db) =>
    saveUserMessage(db, {
      message: {
        id: 'm1',
        sessionId: 's1',
        role: 'user',
        data: { id: 'm1' },
        version: 0,
        createdAt: 9,
      },
      parts: [],
      promote: { id: 'in1', sequence, at: 9 },
    });

/**
 * Applies `writes` in every order, each order twice over, and returns the one ledger row
 * they all produce (the test fails if two orders disagree anywhere in the store).
 */
async function rowOfEveryOrder(writes: readonly Write[]) {
  const dumps = new Set<string>();
  for (const order of permutations(writes)) {
    await truncateAll(ctx.db);
    // One transaction per order: the writes compose (fewer round trips, same rows).
    await ctx.db.transaction().execute(async (trx) => {
      for (const w of [...order, ...order]) await w(trx);
    });
    dumps.add(JSON.stringify(await canonicalDump(ctx.db)));
  }
  expect(dumps.size).toBe(1);
  return getInput(ctx.db, 's1', 'in1');
}

describe('ledger delivery changes (R14.2: only while admitted, whatever the arrival order)', () => {
  it('a change carrying the promotion sequence itself preceded the promotion: it applies', async () => {
    const row = await rowOfEveryOrder([
      queued(2),
      changed(3, 'queue'),
      changed(5, 'startNow'),
      promoted(5),
    ]);
    expect(row).toMatchObject({
      status: 'promoted',
      delivery: 'startNow',
      delivery_seq: 5,
      promoted_seq: 5,
    });
  });

  it('a change sequenced after the promotion never applies', async () => {
    const row = await rowOfEveryOrder([
      queued(2),
      changed(3, 'queue'),
      promoted(4),
      changed(6, 'startNow'),
    ]);
    expect(row).toMatchObject({ status: 'promoted', delivery: 'queue', delivery_seq: 3 });
  });

  it('a change sequenced after a discard never applies; the one before it does', async () => {
    const row = await rowOfEveryOrder([
      queued(2),
      changed(3, 'queue'),
      removed(4),
      changed(6, 'startNow'),
    ]);
    expect(row).toMatchObject({
      status: 'cancelled',
      status_seq: 4,
      delivery: 'queue',
      delivery_seq: 3,
    });
  });

  it('a promotion without a sequence accepts every change (they all precede it)', async () => {
    const row = await rowOfEveryOrder([
      queued(2),
      changed(3, 'queue'),
      changed(6, 'startNow'),
      promoted(),
    ]);
    expect(row).toMatchObject({ status: 'promoted', delivery: 'startNow', delivery_seq: 6 });
  });

  it('while admitted the newest change wins; the admission delivery is the fallback', async () => {
    const row = await rowOfEveryOrder([
      queued(2, 'guide'),
      changed(7, 'startNow'),
      changed(4, 'queue'),
    ]);
    expect(row).toMatchObject({
      status: 'admitted',
      delivery: 'startNow',
      delivery_seq: 7,
      admitted_seq: 2,
    });
    expect(
      await rowOfEveryOrder([queued(2, 'guide'), removed(3), changed(5, 'queue')]),
    ).toMatchObject({
      status: 'cancelled',
      delivery: 'guide',
      delivery_seq: 2,
    });
  });
});
