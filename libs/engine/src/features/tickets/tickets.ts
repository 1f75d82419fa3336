import type { FeatureContext, FeatureHooks, SessionFeature } from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import { reached, type Ticket, TicketBook } from './ticket-book.ts';

/** How long `await_ticket` waits for a ticket the session has not seen yet. */
const UNSEEN_GRACE_MS = 2_000;

/** What `await_ticket` takes (validated by the operation's schema first). */
interface AwaitTicket {
  readonly ticketId: string;
  readonly until: 'delivered' | 'completed';
  readonly timeoutMs: number;
}

function attach(ctx: FeatureContext): FeatureHooks {
  const book = new TicketBook();
  for (const e of ctx.recovered) book.add(e);
  book.live();

  /**
   * Waits until the ticket reached `until` (or left without running), or the timeout:
   * then answers its state as it is, `timedOut` when it is not there yet.
   */
  async function awaitTicket(req: AwaitTicket): Promise<Ticket & { timedOut: boolean }> {
    const start = ctx.clock.now();
    const deadline = start + req.timeoutMs;
    const unseenUntil = start + Math.min(UNSEEN_GRACE_MS, req.timeoutMs);
    for (;;) {
      const ticket = book.get(req.ticketId);
      if (ticket !== undefined && reached(ticket.state, req.until)) {
        return { ...ticket, timedOut: false };
      }
      const now = ctx.clock.now();
      if (ticket === undefined && now >= unseenUntil) {
        throw new RuntimeError('unknown_ticket', `no ticket ${req.ticketId} in this session`, {
          ticketId: req.ticketId,
        });
      }
      if (ticket !== undefined && now >= deadline) return { ...ticket, timedOut: true };
      const change = book.changed();
      const wait = (ticket === undefined ? unseenUntil : deadline) - now;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        change.promise,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, wait);
        }),
      ]);
      clearTimeout(timer);
      change.cancel();
    }
  }

  return {
    onEvent: (event) => book.add(event),
    operations: {
      await_ticket: async (body) => ({ ...(await awaitTicket(body as AwaitTicket)) }),
    },
  };
}

/**
 * Tickets (R12.4, docs/decisions/0226): any frontend awaits a submission's `delivered` (its
 * user message committed, after the worker's confirmation) and `completed` (its turn ended,
 * with the turn's events), by its input id. Folded from the session's own events, so a
 * ticket reads the same after a runtime restart.
 */
export const tickets: SessionFeature = {
  name: 'tickets',
  recoversEvery: [
    'turn_steer_queued',
    'turn_started',
    'turn_steer_drained',
    'session_input_promoted',
    'turn_steer_discarded',
    'turn_complete',
    'turn_error',
  ],
  attach,
};
