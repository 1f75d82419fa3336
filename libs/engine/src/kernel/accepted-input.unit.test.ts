import { afterEach, describe, expect, it } from 'vitest';
import { createSessionHarness } from '../testing/session-harness.ts';
import { startTurn } from '../testing/start-turn.ts';

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

afterEach(() => {
  process.off('unhandledRejection', onRejection);
  rejections.length = 0;
});

/**
 * One turn of the event loop: Node reports a rejection nobody handled once the microtasks
 * of the current task are done, before any `setImmediate` callback runs. No clock involved.
 */
const aTurnOfTheLoop = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A queued input that nobody waits for (a prompt without `wait`) starts its turn later; when
 * that turn fails, as every turn does once its runtime lost the lease, the failure is on the
 * wire and in the log. It must not be an unhandled rejection: Node ends the process for one,
 * and with it every session the runtime hosts (found by a chaos run: a runtime SIGSTOPped
 * past its lease crashed on resuming).
 */
describe('a turn nobody awaits', () => {
  it('a queued turn that fails once its session is fenced is no unhandled rejection', async () => {
    process.on('unhandledRejection', onRejection);
    const h = createSessionHarness({});
    h.appender.observe((event) => {
      if (event.type === 'turn_started' && event.payload.inputId === 'second') {
        h.publisher.fenceNext = true;
      }
    });
    const first = await startTurn(h.session, '[scenario:streamed_text] first');
    const queued = await h.session.submit('[scenario:streamed_text] second', {
      inputId: 'second',
    });
    expect(queued).toMatchObject({ ok: true, delivery: 'queue' });
    await expect(first.done).resolves.toMatchObject({ status: 'complete' });
    await expect.poll(() => h.appender.broken?.code).toBe('fenced');
    await aTurnOfTheLoop();
    expect(rejections).toEqual([]);
  });
});

/**
 * R12.4, R14.3: an input that starts a turn at once is accepted once its admission is
 * stored. A runtime that lost its lease (its publishes fenced) answered "accepted" before,
 * and the input then existed nowhere: no ledger row, no event (found by a chaos run).
 */
describe('accepted means stored', () => {
  it('an admission that is stored settles `stored`, with the turn running meanwhile', async () => {
    const h = createSessionHarness({});
    const admitted = await h.session.submit('[scenario:streamed_text] hello', { inputId: 'in-1' });
    if (!admitted.ok || admitted.delivery !== 'startNow') throw new Error('not started');
    await admitted.stored;
    const queued = h.publisher.published.find((p) => p.event.type === 'turn_steer_queued');
    expect(queued?.event.payload).toMatchObject({ pendingInputId: 'in-1', delivery: 'startNow' });
    await expect(admitted.done).resolves.toMatchObject({ status: 'complete' });
  });

  it('an admission the broker fences rejects `stored` and is published nowhere', async () => {
    process.on('unhandledRejection', onRejection);
    const h = createSessionHarness({});
    h.appender.observe((event) => {
      if (event.type === 'turn_steer_queued') h.publisher.fenceNext = true;
    });
    const admitted = await h.session.submit('[scenario:streamed_text] hello', { inputId: 'in-1' });
    if (!admitted.ok || admitted.delivery !== 'startNow') throw new Error('not started');
    await expect(admitted.stored).rejects.toMatchObject({ code: 'fenced' });
    await expect(admitted.done).rejects.toMatchObject({ code: 'session_broken' });
    expect(h.publisher.types()).not.toContain('turn_steer_queued');
    await aTurnOfTheLoop();
    expect(rejections).toEqual([]);
  });
});
