import type { SessionEvent } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { canonicalDump } from './canonical-dump.ts';
import { applyDurableEvent, type DurableEvent } from './durable-events.ts';
import { keyedEntryId, listEntries } from './entries-repository.ts';
import { getInput, listInputs } from './ledger-repository.ts';
import { saveUserMessage } from './messages-repository.ts';
import { getLastSequence } from './session-sequence.ts';
import { event, permutations, truncateAll, useStoreTestContext } from './test-support.ts';
import { isDurableEvent } from './testing/is-durable-event.ts';

const ctx = useStoreTestContext();

const queued = (seq: number, id = 'in1') =>
  event('turn_steer_queued', seq, {
    pendingInputId: id,
    input: 'do the thing',
    inputPreview: 'do the',
    inputSize: 12,
    delivery: 'guide',
    targetTurnId: 't1',
    queueLength: 1,
  });
const deliveryChanged = (seq: number, id = 'in1') =>
  event('turn_steer_delivery_changed', seq, {
    pendingInputId: id,
    requestedDelivery: 'guide',
    admittedDelivery: 'queue',
    fallbackReasonCode: 'turn_not_steerable',
  });
const discarded = (
  seq: number,
  reason: 'user_removed' | 'turn_cancelled' | 'promoted',
  id = 'in1',
) => event('turn_steer_discarded', seq, { pendingInputId: id, reason });
const autoResolution = (seq: number, deadlineAt: number) =>
  event('user_input_auto_resolution_updated', seq, {
    interactionId: 'ix1',
    toolCallId: 'call1',
    autoResolution: { state: 'visibleCountdown', startedAt: 1, visibleAt: 2, deadlineAt },
  });

async function applyAll(events: readonly DurableEvent[]): Promise<void> {
  for (const e of events) await applyDurableEvent(ctx.db, e);
}

/** Applies `events` in every order (each twice); all orders must give one dump. */
async function expectOrderIndependent(events: readonly DurableEvent[]) {
  const dumps = new Set<string>();
  for (const order of permutations(events)) {
    await truncateAll(ctx.db);
    await applyAll(order);
    await applyAll(order);
    dumps.add(JSON.stringify(await canonicalDump(ctx.db)));
  }
  expect(dumps.size).toBe(1);
}

describe('applyDurableEvent: R6 entries', () => {
  it('writes checkpoint and rewind entries once per event and raises last_sequence', async () => {
    const checkpoint = event('checkpoint_created', 4, {
      checkpointId: 'cp1',
      messageId: 'm1',
      snapshotRef: 'ref',
      scope: 'workspace',
    });
    const rewind = event('rewind_triggered', 7, {
      rewindId: 'r1',
      scope: 'conversation',
      strategy: 'active_chain',
    });
    expect(await applyDurableEvent(ctx.db, checkpoint)).toEqual({ applied: true });
    expect(await applyDurableEvent(ctx.db, rewind)).toEqual({ applied: true });
    const once = await canonicalDump(ctx.db);
    expect(await applyDurableEvent(ctx.db, checkpoint)).toEqual({ applied: false });
    expect(await canonicalDump(ctx.db)).toEqual(once);

    const entries = await listEntries(ctx.db, 's1');
    expect(entries.map((e) => [e.type, e.event_id, e.sequence])).toEqual([
      ['runtime/workspace_checkpoint', 's1-e4', 4],
      ['runtime/workspace_file_rewind', 's1-e7', 7],
    ]);
    expect(entries[0]?.data).toEqual(checkpoint.payload);
    expect(await getLastSequence(ctx.db, 's1')).toBe(7);
  });

  it('upserts the auto-resolution entry per interaction; an older event never overwrites', async () => {
    await applyDurableEvent(ctx.db, autoResolution(5, 500));
    await applyDurableEvent(ctx.db, autoResolution(9, 900));
    expect(await applyDurableEvent(ctx.db, autoResolution(7, 700))).toEqual({ applied: false });
    const entries = await listEntries(ctx.db, 's1', 'runtime/user_input_auto_resolution');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      id: keyedEntryId('s1', 'runtime/user_input_auto_resolution', 'ix1'),
      key: 'ix1',
      sequence: 9,
      event_id: 's1-e9',
    });
    expect(entries[0]?.data).toMatchObject({ autoResolution: { deadlineAt: 900 } });
    expect(await getLastSequence(ctx.db, 's1')).toBe(9);
    await expectOrderIndependent([
      autoResolution(5, 500),
      autoResolution(9, 900),
      autoResolution(7, 700),
    ]);
  });

  it('writes a target verification entry plus a goal-verification timeline part', async () => {
    const e = event('target_completion_verification', 3, {
      targetId: 'g1',
      verificationId: 'v1',
      status: 'completed',
      verification: { passed: true, reason: 'all tests pass' },
    });
    await applyDurableEvent(ctx.db, e);
    await applyDurableEvent(ctx.db, e);
    const dump = await canonicalDump(ctx.db, { tables: ['session_entries', 'messages', 'parts'] });
    expect(dump.session_entries).toHaveLength(1);
    expect(dump.messages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        data: expect.objectContaining({
          semantics: expect.objectContaining({
            kind: 'timeline_event',
            providerVisibility: 'hidden',
          }),
        }),
      }),
    ]);
    expect(dump.parts).toEqual([
      expect.objectContaining({
        type: 'timeline',
        data: expect.objectContaining({
          kind: 'goal_verification',
          verificationId: 'v1',
          passed: true,
        }),
      }),
    ]);
  });

  it('keeps last_sequence at the highest number seen, whatever the order', async () => {
    await applyDurableEvent(ctx.db, autoResolution(12, 1));
    await applyDurableEvent(ctx.db, queued(3));
    expect(await getLastSequence(ctx.db, 's1')).toBe(12);
  });

  it('recognises exactly the seven durable types', () => {
    const durable = [queued(1), discarded(2, 'promoted'), autoResolution(3, 1)] as SessionEvent[];
    expect(durable.every(isDurableEvent)).toBe(true);
    expect(
      isDurableEvent(event('turn_started', 1, { turnNumber: 1, input: 'x' }) as SessionEvent),
    ).toBe(false);
  });
});

describe('applyDurableEvent: the input ledger (R14)', () => {
  it('admits once, changes delivery while admitted, closes as cancelled', async () => {
    await applyAll([queued(2), queued(2), deliveryChanged(3), discarded(4, 'user_removed')]);
    const row = await getInput(ctx.db, 's1', 'in1');
    expect(row).toMatchObject({
      status: 'cancelled',
      status_reason: 'user_removed',
      delivery: 'queue',
      admitted_seq: 2,
      payload: { text: 'do the thing' },
    });
    // Terminal stays terminal: a later discard and a later delivery change are no-ops.
    const before = await canonicalDump(ctx.db);
    await applyAll([discarded(6, 'turn_cancelled'), deliveryChanged(7)]);
    const after = await canonicalDump(ctx.db);
    expect(after.session_inputs).toEqual(before.session_inputs);
  });

  it('maps discard reasons: turn_cancelled -> discarded; promoted -> untouched', async () => {
    await applyAll([queued(2, 'a'), discarded(3, 'turn_cancelled', 'a')]);
    await applyAll([queued(4, 'b'), discarded(5, 'promoted', 'b')]);
    expect(await getInput(ctx.db, 's1', 'a')).toMatchObject({
      status: 'discarded',
      status_reason: 'turn_cancelled',
    });
    expect(await getInput(ctx.db, 's1', 'b')).toMatchObject({
      status: 'admitted',
      status_reason: null,
    });
  });

  it('gives the same rows for every arrival order of queued, delivery_changed and discarded', async () => {
    await expectOrderIndependent([queued(2), deliveryChanged(3), discarded(5, 'user_removed')]);
  });

  it('a delivery change arriving before its admission is kept', async () => {
    await applyAll([deliveryChanged(3), queued(2)]);
    expect(await getInput(ctx.db, 's1', 'in1')).toMatchObject({
      delivery: 'queue',
      status: 'admitted',
      admitted_seq: 2,
    });
  });

  it('lists rows only once their admission has arrived', async () => {
    await applyDurableEvent(ctx.db, deliveryChanged(3));
    expect(await listInputs(ctx.db, 's1')).toEqual([]);
    await applyDurableEvent(ctx.db, queued(2));
    expect((await listInputs(ctx.db, 's1')).map((r) => r.id)).toEqual(['in1']);
  });

  it('the promotion command and the admission event commute', async () => {
    const promote = () =>
      saveUserMessage(ctx.db, {
        message: {
          id: 'm1',
          sessionId: 's1',
          role: 'user',
          data: { id: 'm1' },
          version: 0,
          createdAt: 5,
        },
        parts: [],
        promote: { id: 'in1', at: 5 },
      });
    await promote();
    await applyAll([queued(2), deliveryChanged(3)]);
    const promotedFirst = await canonicalDump(ctx.db);
    await truncateAll(ctx.db);
    await applyAll([queued(2), deliveryChanged(3)]);
    await promote();
    expect(await canonicalDump(ctx.db)).toEqual(promotedFirst);
    expect(await getInput(ctx.db, 's1', 'in1')).toMatchObject({
      status: 'promoted',
      message_id: 'm1',
      delivery: 'queue',
    });
  });
});
