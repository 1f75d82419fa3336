import type { SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { BrokerUnavailableError } from './early-turn-end.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TurnOutcome } from './turn-runner.ts';
import { TurnSlot } from './turn-slot.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A slot whose turns run until their signal aborts or `finish` ends them. */
function slot() {
  const emitted: string[] = [];
  const settled: { turnId: string; status: string; idle: boolean }[] = [];
  const finishers = new Map<string, (status: TurnOutcome['status']) => void>();
  const emitter = {
    sessionId: 's1',
    emit: async (type: string) => {
      emitted.push(type);
    },
  } as unknown as SessionEmitter;
  let n = 0;
  const turns = new TurnSlot({
    emitter,
    ids: { newId: (kind) => `${kind}_${++n}`, newTraceId: () => `tr_${++n}` },
    logger: quiet,
    run: async (spec, signal, previous) => {
      await previous;
      const status = await new Promise<TurnOutcome['status']>((resolve) => {
        finishers.set(spec.turnId, resolve);
        if (signal.aborted) resolve('cancelled');
        signal.addEventListener('abort', () => resolve('cancelled'));
      });
      return { turnId: spec.turnId, status, response: '' };
    },
    settled: (turnId, status, idle) => settled.push({ turnId, status, idle }),
  });
  const start = (turnId: string, inputId: string | undefined = `in_${turnId}`) =>
    turns.start({ turnId, input: 'x', files: [], inputId, traceId: 'tr' });
  const end = (type: 'turn_complete' | 'rewind_triggered', turnId: string | null): SessionEvent =>
    ({ ...sampleSessionEvent(type), turnId }) as SessionEvent;
  return { turns, emitted, settled, finishers, start, end };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!done()) throw new Error('timed out');
}

describe('the session turn slot (R12.5)', () => {
  it('requeues a preparing turn on interrupt without ending it, and ends a prepared one', async () => {
    const s = slot();
    s.start('t1');
    expect(s.turns.interrupt()).toMatchObject({ turnId: 't1', requeued: true });
    expect(s.turns.epoch).toBe(1);
    expect(s.turns.active?.controller.signal.aborted).toBe(false);
    s.turns.prepared('t1');
    const ticket = s.turns.interrupt();
    expect(ticket.requeued).toBe(false);
    await expect(ticket.done).resolves.toMatchObject({ status: 'cancelled' });
    expect(s.emitted).toEqual(['interrupt', 'interrupt']);
    expect(s.settled).toEqual([{ turnId: 't1', status: 'cancelled', idle: true }]);
    expect(s.turns.active).toBeUndefined();
  });

  it('refuses an interrupt with no turn, or once the turn’s end is appended', () => {
    const s = slot();
    expect(() => s.turns.interrupt()).toThrow(/no turn is running/);
    s.start('t1');
    s.turns.observe(s.end('turn_complete', 't1'));
    expect(s.turns.active?.ending).toBe(true);
    expect(() => s.turns.interrupt()).toThrow(/no turn is running/);
  });

  it('starts the next turn after the previous one ended; the slot is not idle meanwhile', async () => {
    const s = slot();
    const first = s.start('t1');
    const second = s.start('t2');
    expect(s.turns.active?.turnId).toBe('t2');
    await until(() => s.finishers.has('t1'));
    // The second turn's life waits for the first one's end.
    expect(s.finishers.has('t2')).toBe(false);
    s.finishers.get('t1')?.('complete');
    await first.done;
    expect(s.settled).toEqual([{ turnId: 't1', status: 'complete', idle: false }]);
    await until(() => s.finishers.has('t2'));
    s.finishers.get('t2')?.('complete');
    await second.done;
    expect(s.settled.at(-1)).toEqual({ turnId: 't2', status: 'complete', idle: true });
  });

  it('moves the epoch on a rewind, and ends a turn the broker stayed away from', async () => {
    const s = slot();
    s.turns.observe(s.end('rewind_triggered', null));
    expect(s.turns.epoch).toBe(1);
    const ticket = s.start('t1');
    const controller = s.turns.active?.controller;
    s.turns.brokerUnavailable(5_000);
    await expect(ticket.done).resolves.toMatchObject({ status: 'cancelled' });
    expect(controller?.signal.reason).toBeInstanceOf(BrokerUnavailableError);
  });
});
