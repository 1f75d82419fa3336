import type { PersistenceCommand } from '@agentwire/contracts';
import { samplePersistenceCommands as cmds } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { canonicalDump } from './canonical-dump.ts';
import { applyDurableEvent } from './durable-events.ts';
import { getInput } from './ledger-repository.ts';
import { applyPersistenceCommand } from './persistence-commands.ts';
import { getSession } from './sessions-repository.ts';
import { event, permutations, truncateAll, useStoreTestContext } from './test-support.ts';

const ctx = useStoreTestContext();

const queuedInput1 = event(
  'turn_steer_queued',
  2,
  {
    pendingInputId: 'input-1',
    input: 'fix the flaky test',
    inputPreview: 'fix the',
    inputSize: 18,
    delivery: 'queue',
    targetTurnId: null,
    queueLength: 1,
  },
  { sessionId: 'session-1' },
);

const ALL: PersistenceCommand[] = [
  cmds.ensure_session,
  cmds.save_user_message,
  cmds.save_assistant_message,
  cmds.save_part,
  cmds.save_synthetic_notice,
  cmds.save_timeline_divider,
];

describe('applyPersistenceCommand (R7)', () => {
  it('applies each command once; a repeat is a duplicate and changes nothing', async () => {
    await applyDurableEvent(ctx.db, queuedInput1);
    for (const c of ALL)
      expect(await applyPersistenceCommand(ctx.db, c)).toEqual({ outcome: 'applied' });
    const once = await canonicalDump(ctx.db);
    for (const c of ALL)
      expect(await applyPersistenceCommand(ctx.db, c)).toEqual({ outcome: 'duplicate' });
    expect(await canonicalDump(ctx.db)).toEqual(once);
    expect(await getInput(ctx.db, 'session-1', 'input-1')).toMatchObject({
      status: 'promoted',
      message_id: 'msg-1',
    });
    expect(once.parts?.find((p) => p.id === 'part-tool-1')).toMatchObject({ status: 'completed' });
  });

  it('gives the same rows in any order of commands and the admission event', async () => {
    const dumps = new Set<string>();
    const orders = permutations([...ALL.slice(0, 4), queuedInput1] as const);
    for (const order of orders.filter((_, i) => i % 7 === 0)) {
      await truncateAll(ctx.db);
      for (const item of order) {
        if ('kind' in item) await applyPersistenceCommand(ctx.db, item);
        else await applyDurableEvent(ctx.db, item);
      }
      dumps.add(JSON.stringify(await canonicalDump(ctx.db)));
    }
    expect(dumps.size).toBe(1);
  });

  it('an older version of a message is stale', async () => {
    await applyPersistenceCommand(ctx.db, cmds.save_assistant_message);
    const older = { ...cmds.save_assistant_message, commandId: 'old', version: 1 };
    expect(await applyPersistenceCommand(ctx.db, older)).toEqual({ outcome: 'stale' });
  });

  it('update_title applies under its condition and reports condition_failed otherwise', async () => {
    expect(await applyPersistenceCommand(ctx.db, cmds.update_title)).toMatchObject({
      outcome: 'condition_failed',
      reason: 'not_found',
    });
    await applyPersistenceCommand(ctx.db, cmds.ensure_session);
    expect(await applyPersistenceCommand(ctx.db, cmds.update_title)).toEqual({
      outcome: 'applied',
    });
    expect(await getSession(ctx.db, 'session-1')).toMatchObject({ title: cmds.update_title.title });
    const edited = { ...cmds.update_title, expectedFirstInput: 'something else' };
    expect(await applyPersistenceCommand(ctx.db, edited)).toMatchObject({
      outcome: 'condition_failed',
    });
  });

  it('close_input closes an admitted input and answers condition_failed once it is not (0237)', async () => {
    await applyDurableEvent(ctx.db, queuedInput1);
    expect(await applyPersistenceCommand(ctx.db, cmds.close_input)).toEqual({ outcome: 'applied' });
    expect(await getInput(ctx.db, 'session-1', 'input-1')).toMatchObject({
      status: 'discarded',
      status_reason: 'session_resumed',
    });
    // The promotion it was ordered behind lost: no message is written.
    expect(await applyPersistenceCommand(ctx.db, cmds.save_user_message)).toMatchObject({
      outcome: 'condition_failed',
    });
    expect(await applyPersistenceCommand(ctx.db, cmds.close_input)).toMatchObject({
      outcome: 'condition_failed',
    });
    // A promotion that committed first wins: the close leaves the row promoted.
    await truncateAll(ctx.db);
    await applyDurableEvent(ctx.db, queuedInput1);
    await applyPersistenceCommand(ctx.db, cmds.save_user_message);
    expect(await applyPersistenceCommand(ctx.db, cmds.close_input)).toMatchObject({
      outcome: 'condition_failed',
    });
    expect(await getInput(ctx.db, 'session-1', 'input-1')).toMatchObject({ status: 'promoted' });
  });

  it('a promotion of a cancelled input is refused and writes no message', async () => {
    await applyDurableEvent(ctx.db, queuedInput1);
    const removed = event(
      'turn_steer_discarded',
      3,
      { pendingInputId: 'input-1', reason: 'user_removed' },
      { sessionId: 'session-1' },
    );
    await applyDurableEvent(ctx.db, removed);
    expect(await applyPersistenceCommand(ctx.db, cmds.save_user_message)).toEqual({
      outcome: 'condition_failed',
      reason: 'input_not_admitted:cancelled',
    });
    expect((await canonicalDump(ctx.db, { tables: ['messages'] })).messages).toEqual([]);
  });
});
