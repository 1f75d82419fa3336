import type { SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { createSessionHarness } from '../../testing/session-harness.ts';
import { reached, TicketBook } from './ticket-book.ts';

const quickly = { timeoutMs: 2_000, intervalMs: 2 } as const;

function setup(recovered: SessionEvent[] = []) {
  const h = createSessionHarness({
    start: { persisted: false, title: null, turnCount: 0, history: [], featureEvents: recovered },
  });
  const ticket = (ticketId: string, until: 'delivered' | 'completed', timeoutMs = 2_000) =>
    h.session.runOperation('await_ticket', { ticketId, until, timeoutMs });
  return { ...h, ticket };
}

describe('tickets (R12.4, docs/decisions/0226)', () => {
  it('a queued input is accepted, then delivered, then completed with its turn’s events', async () => {
    const h = setup();
    await h.session.submit('[scenario:run_command] go', { inputId: 'first' });
    await waitUntil(() => h.session.permissions.pendingRequestIds().length === 1, quickly);
    await h.session.submit('second', { inputId: 'second' });
    expect(await h.ticket('second', 'delivered', 20)).toMatchObject({
      ticketId: 'second',
      state: 'accepted',
      timedOut: true,
    });
    const delivered = h.ticket('second', 'delivered');
    const completed = h.ticket('second', 'completed');
    const [requestId = ''] = h.session.permissions.pendingRequestIds();
    h.session.answerPermission(requestId, { decision: 'allow' });
    expect(await delivered).toMatchObject({ state: 'delivered', timedOut: false });
    const done = (await completed) as {
      state: string;
      status: string;
      turnId: string;
      events: { type: string; sequenceNumber: number }[];
    };
    expect(done).toMatchObject({ state: 'completed', status: 'complete' });
    expect(done.events[0]?.type).toBe('turn_started');
    expect(done.events.at(-1)?.type).toBe('turn_complete');
    // The numbers are the session's own, in order, all of that turn.
    const ofTurn = h.events.filter((e) => e.turnId === done.turnId).map((e) => e.sequenceNumber);
    expect(done.events.map((e) => e.sequenceNumber)).toEqual(ofTurn);
  });

  it('a removed input is discarded, with why; an unknown ticket is unknown_ticket', async () => {
    const h = setup();
    await h.session.submit('[scenario:run_command] go', { inputId: 'first' });
    await waitUntil(() => h.session.permissions.pendingRequestIds().length === 1, quickly);
    await h.session.submit('later', { inputId: 'later' });
    await h.session.removeInput('later');
    expect(await h.ticket('later', 'completed')).toMatchObject({
      state: 'discarded',
      reason: 'user_removed',
      timedOut: false,
    });
    await expect(h.ticket('never', 'delivered', 30)).rejects.toMatchObject({
      code: 'unknown_ticket',
    });
    const [requestId = ''] = h.session.permissions.pendingRequestIds();
    h.session.answerPermission(requestId, { decision: 'deny' });
  });

  it('reads a ticket back from the stream after a restart', async () => {
    const ev = (type: string, turnId: string | null, payload: unknown, sequenceNumber: number) =>
      ({ type, turnId, payload, sequenceNumber }) as unknown as SessionEvent;
    const h = setup([
      ev('turn_steer_queued', null, { pendingInputId: 'x' }, 1),
      ev('session_input_promoted', null, { pendingInputId: 'x', messageId: 'm1' }, 3),
      ev('turn_started', 't1', { inputId: 'x', turnNumber: 0, input: 'hi' }, 4),
      ev(
        'turn_error',
        't1',
        { error: { type: 'runtime_lost', message: 'lost' }, turnPhase: 'x' },
        9,
      ),
    ]);
    expect(await h.ticket('x', 'completed')).toMatchObject({
      state: 'completed',
      status: 'error',
      turnId: 't1',
      messageId: 'm1',
    });
  });

  it('orders its states', () => {
    expect(reached('delivered', 'delivered')).toBe(true);
    expect(reached('accepted', 'delivered')).toBe(false);
    expect(reached('discarded', 'completed')).toBe(true);
    expect(new TicketBook().get('none')).toBeUndefined();
  });
});
