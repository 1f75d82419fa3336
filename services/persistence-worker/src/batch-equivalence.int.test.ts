import type { PersistenceCommand, PersistenceConfirmation } from '@agentwire/contracts';
import {
  applyDurableEvents,
  createDatabase,
  type Database,
  type DurableEvent,
  isMessageCommand,
  migrate,
} from '@agentwire/store';
import {
  applyDurableEvent,
  applyPersistenceCommand,
  canonicalDump,
  isDurableEvent,
} from '@agentwire/store/testing';
import { createTestEnvironment, seededRandom, type TestEnvironment } from '@agentwire/testing';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCommand } from './apply-command.ts';
import { applyCommandBatch, commandBatchApply } from './command-batch-handler.ts';
import { generateWorkload, shuffleWithinSessions, type WorkItem } from './testing/workload.ts';

let env: TestEnvironment;
let db: Kysely<Database>;
beforeAll(async () => {
  env = await createTestEnvironment();
  db = createDatabase(env.databaseUrl, { poolSize: 2 });
  await migrate(db);
});
afterAll(async () => {
  await db.destroy();
  await env.dispose();
});

const TABLES = ['sessions', 'messages', 'parts', 'session_entries', 'session_inputs'] as const;

async function reset(): Promise<void> {
  await sql`truncate sessions, messages, parts, session_entries, session_inputs`.execute(db);
}

/** Splits items into batches of random sizes (1..300). */
function batches(items: readonly WorkItem[], random: () => number): WorkItem[][] {
  const out: WorkItem[][] = [];
  for (let i = 0; i < items.length; ) {
    const size = 1 + Math.floor(random() * 300);
    out.push(items.slice(i, i + size));
    i += size;
  }
  return out;
}

/**
 * The reference: every item alone through the one-row repositories, each batch's events
 * first, then its commands (the worker consumes them separately, so within a batch their
 * relative order is arbitrary anyway).
 */
async function oneByOne(split: readonly (readonly WorkItem[])[]) {
  await reset();
  const outcomes: unknown[] = [];
  for (const batch of split) {
    for (const item of batch) {
      if (item.kind === 'event' && isDurableEvent(item.event))
        await applyDurableEvent(db, item.event);
    }
    for (const item of batch) {
      if (item.kind !== 'command') continue;
      if (isMessageCommand(item.command)) {
        outcomes.push((await applyPersistenceCommand(db, item.command)).outcome);
      } else {
        outcomes.push(outcomeOf(await applyCommand(db, item.command)));
      }
    }
  }
  return { dump: await canonicalDump(db, { tables: TABLES }), outcomes };
}

/** The worker's path: per batch one transaction, events and commands each set-based. */
async function inBatches(split: readonly (readonly WorkItem[])[]) {
  await reset();
  const outcomes: unknown[] = [];
  for (const batch of split) {
    const events = batch.flatMap((b) =>
      b.kind === 'event' && isDurableEvent(b.event) ? [b.event as DurableEvent] : [],
    );
    const commands = batch.flatMap((b) => (b.kind === 'command' ? [b.command] : []));
    await db.transaction().execute(async (trx) => {
      await applyDurableEvents(trx, events);
      const confirmations = await commandBatchApply(trx, commands as PersistenceCommand[]);
      outcomes.push(...confirmations.map(outcomeOf));
    });
  }
  return { dump: await canonicalDump(db, { tables: TABLES }), outcomes };
}

/**
 * The worker's path at low load: every item alone in its batch, a command through
 * `applyCommandBatch` (a user message in one statement without a transaction block, 0247).
 */
async function alone(items: readonly WorkItem[]) {
  await reset();
  const outcomes: unknown[] = [];
  for (const item of items) {
    if (item.kind === 'event') {
      if (isDurableEvent(item.event)) {
        const event = item.event as DurableEvent;
        await db.transaction().execute((trx) => applyDurableEvents(trx, [event]));
      }
      continue;
    }
    const [confirmation] = await applyCommandBatch(db, [item.command as PersistenceCommand]);
    if (confirmation === undefined) throw new Error('no confirmation');
    outcomes.push(outcomeOf(confirmation));
  }
  return { dump: await canonicalDump(db, { tables: TABLES }), outcomes };
}

function outcomeOf(c: PersistenceConfirmation): unknown {
  return c.ok ? c.outcome : 'condition_failed';
}

/**
 * Adds, for a share of the inputs the workload discards, a user message that tries to
 * promote it (refused when the discard came first, R14.2), and a timeline divider.
 */
function withContestedPromotions(items: readonly WorkItem[], random: () => number): WorkItem[] {
  const out = [...items];
  const template = items.find(
    (i) => i.kind === 'command' && i.command.kind === 'save_user_message',
  );
  if (template?.kind !== 'command' || template.command.kind !== 'save_user_message') return out;
  const t = template.command;
  for (const [n, item] of items.entries()) {
    if (item.kind !== 'event' || item.event.type !== 'turn_steer_discarded') continue;
    if (item.event.payload.reason === 'promoted' || random() < 0.5) continue;
    const sid = item.event.sessionId;
    const mid = `contest-${n}`;
    const command: PersistenceCommand = {
      ...t,
      commandId: `cmd-contest-${n}`,
      sessionId: sid,
      message: { ...t.message, id: mid, sessionId: sid },
      parts: [{ id: `${mid}-p0`, sessionId: sid, messageId: mid, type: 'text', text: 'late' }],
      promoteInputId: item.event.payload.pendingInputId,
      promotedSequenceNumber: item.event.sequenceNumber,
    };
    out.splice(Math.floor(random() * (out.length + 1)), 0, { kind: 'command', command });
  }
  return out;
}

/** Repeats a random share of the items later in the sequence (redeliveries). */
function withRepeats(items: readonly WorkItem[], random: () => number): WorkItem[] {
  const out = [...items];
  for (const item of items) {
    if (random() < 0.15) out.splice(Math.floor(random() * (out.length + 1)), 0, item);
  }
  return out;
}

describe('set-based batches equal one-by-one application (docs/decisions/0035)', () => {
  it('gives the same rows and outcomes for random workloads, orders, repeats and batch sizes', {
    timeout: 120_000,
  }, async () => {
    for (const seed of [1, 2]) {
      const random = seededRandom(seed * 7919);
      const base = generateWorkload({
        seed,
        items: 1_500,
        sessions: 12,
        sessionPrefix: `q${seed}`,
      });
      const contested = withContestedPromotions(shuffleWithinSessions(base, seed), random);
      const items = withRepeats(contested, random);
      const split = batches(items, random);
      const reference = await oneByOne(split);
      const batched = await inBatches(split);
      expect(batched.dump).toEqual(reference.dump);
      // Outcomes may differ only where a one-row write and the set-based one disagree on
      // `duplicate` vs `stale` for an item overtaken in the same batch: compare ok-ness.
      expect(batched.outcomes.map((o) => o === 'condition_failed')).toEqual(
        reference.outcomes.map((o) => o === 'condition_failed'),
      );
      expect(reference.dump.session_inputs?.length).toBeGreaterThan(0);
      expect(reference.outcomes).toContain('condition_failed');
    }
  });

  it('gives the same rows and outcomes with every item alone, user messages in one statement', {
    timeout: 120_000,
  }, async () => {
    const random = seededRandom(31);
    const base = generateWorkload({ seed: 3, items: 1_000, sessions: 8, sessionPrefix: 'a3' });
    const items = withRepeats(
      withContestedPromotions(shuffleWithinSessions(base, 3), random),
      random,
    );
    const reference = await oneByOne(items.map((i) => [i]));
    const single = await alone(items);
    expect(single.dump).toEqual(reference.dump);
    expect(single.outcomes).toEqual(reference.outcomes);
    // The statement's three cases ran: applied, a redelivered promotion, a refused one.
    const promotions = items.flatMap((i, n) =>
      i.kind === 'command' &&
      i.command.kind === 'save_user_message' &&
      i.command.promoteInputId !== undefined
        ? [n]
        : [],
    );
    expect(promotions.length).toBeGreaterThan(10);
    expect(reference.outcomes).toContain('applied');
    expect(reference.outcomes).toContain('duplicate');
    expect(reference.outcomes).toContain('condition_failed');
  });
});
