import { HEADERS, type SessionEvent } from '@agentwire/contracts';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import { getLastSequence } from '@agentwire/store';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: RuntimeStack;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'sequence-mark-e2e' }, ['rtA']);
});

afterAll(async () => {
  await stack?.stop();
});

/** Runs one prompt to completion on `sid`, returning the session's events it produced. */
async function promptTurn(sid: string, afterSequence: number, text: string) {
  const follow = stack.client.follow(sid, afterSequence);
  const reply = await stack.client.runTurn(sid, text, follow);
  expect(reply).toMatchObject({ ok: true, status: 'complete' });
  await follow.stop();
  return follow.events;
}

/** The first retained message on `subject` (an ordered consumer's first delivery). */
async function firstMessageOn(subject: string) {
  const consumer = await stack.bus.js.consumers.get(stack.names.eventsStream, {
    filter_subjects: subject,
  });
  try {
    const m = await consumer.next({ expires: 5_000 });
    if (m === null) throw new Error(`no message on ${subject}`);
    return { header: (name: string) => m.headers?.get(name) };
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

const numbersOf = (events: readonly SessionEvent[]) => events.map((e) => e.sequenceNumber);

describe('a number is never reused after the stream dropped a session (DESIGN invariant 1)', () => {
  it('continues after the durable mark once the session left the stream', async () => {
    const opened = await stack.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const before = await promptTurn(sid, 0, 'first question');
    const oldNumbers = numbersOf(before);
    const oldMax = Math.max(...oldNumbers);
    // The turn ends with non-durable events (R6 writes no row for turn_complete).
    expect(before.at(-1)?.type).toBe('turn_complete');
    expect(oldNumbers).toEqual(oldNumbers.map((_, i) => i + 1));

    // The worker caught up: its mark covers the turn's last (non-durable) number.
    await waitUntil(async () => (await getLastSequence(stack.db, sid)) === oldMax, {
      timeoutMs: 10_000,
      what: `sessions.last_sequence = ${oldMax}`,
    });

    // The runtime process goes away; the stream's age limit drops the session's messages.
    const rtA = stack.runtimes.get('rtA');
    rtA?.kill('SIGTERM');
    await rtA?.exited;
    stack.runtimes.delete('rtA');
    const purged = await stack.bus.jsm.streams.purge(stack.names.eventsStream, {
      filter: stack.names.sessionFilter(sid),
    });
    expect(purged.purged).toBeGreaterThan(0);

    // Cold recovery on another process, then a new turn.
    await stack.startRuntime('rtB');
    const reopened = await stack.client.open(sid);
    expect(reopened).toMatchObject({ ok: true, owner: 'rtB' });
    const after = await promptTurn(sid, oldMax, 'second question');
    const newNumbers = numbersOf(after);

    expect(newNumbers.length).toBeGreaterThan(3);
    expect(Math.min(...newNumbers)).toBe(oldMax + 1);
    expect(newNumbers).toEqual(newNumbers.map((_, i) => oldMax + 1 + i));
    expect(newNumbers.filter((n) => oldNumbers.includes(n))).toEqual([]);
    // The chain of Aw-Prev-Seq continues from the old turn's last ev event, so the
    // projection applies the new events instead of dead-lettering a broken chain.
    const firstEv = await firstMessageOn(stack.names.eventSubject(sid));
    expect(firstEv.header(HEADERS.sequence)).toBe(String(oldMax + 1));
    expect(firstEv.header(HEADERS.previousDurableSequence)).toBe(String(oldMax));
    await waitUntil(
      async () => (await getLastSequence(stack.db, sid)) === Math.max(...newNumbers),
      { timeoutMs: 10_000, what: 'the mark to follow the new turn' },
    );
  });
});
