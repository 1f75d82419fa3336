import type { SessionEvent } from '@agentwire/contracts';

/** Where a submission is (R12.4): accepted, its message committed, its turn over, or gone. */
export type TicketState = 'accepted' | 'delivered' | 'completed' | 'discarded';

/** What a ticket says (docs/decisions/0226). */
export interface Ticket {
  readonly ticketId: string;
  readonly state: TicketState;
  readonly turnId?: string;
  /** The user message it became (from `delivered`). */
  readonly messageId?: string;
  /** How its turn ended (from `completed`): `complete`, `cancelled` or `error`. */
  readonly status?: 'complete' | 'cancelled' | 'error';
  /** Why it left without running (`discarded`). */
  readonly reason?: string;
  /**
   * R1.1's turn result: the turn's events, numbers and types, when the turn ran in this
   * load (a turn recovered from the stream after a restart gives only its end).
   */
  readonly events?: readonly { readonly sequenceNumber: number; readonly type: string }[];
}

const RANK: Readonly<Record<TicketState, number>> = {
  accepted: 0,
  delivered: 1,
  completed: 2,
  discarded: 2,
};

/** Whether `state` is at or past `until` (a discarded ticket is past everything). */
export function reached(state: TicketState, until: 'delivered' | 'completed'): boolean {
  return state === 'discarded' || RANK[state] >= RANK[until];
}

/** How many tickets a session remembers (the oldest go first). */
const REMEMBERED = 512;

interface Entry {
  state: TicketState;
  turnId?: string;
  messageId?: string;
  status?: 'complete' | 'cancelled' | 'error';
  reason?: string;
  events?: { sequenceNumber: number; type: string }[];
}

/**
 * The tickets of one session (R12.4), folded from its own events: the stream is the truth,
 * so the same fold serves a live session and one recovered after a restart. Waiters are
 * told each change.
 */
export class TicketBook {
  readonly #tickets = new Map<string, Entry>();
  /** The inputs of each turn, so that the turn's end completes them all. */
  readonly #turnInputs = new Map<string, string[]>();
  readonly #waiters = new Set<() => void>();
  /** Whether events of running turns are collected (live only). */
  #collect = false;

  /** From now on, collect each turn's events for its tickets' results. */
  live(): void {
    this.#collect = true;
  }

  /** The ticket, or undefined when this session holds none by that id. */
  get(ticketId: string): Ticket | undefined {
    const e = this.#tickets.get(ticketId);
    if (e === undefined) return undefined;
    return {
      ticketId,
      state: e.state,
      ...(e.turnId === undefined ? {} : { turnId: e.turnId }),
      ...(e.messageId === undefined ? {} : { messageId: e.messageId }),
      ...(e.status === undefined ? {} : { status: e.status }),
      ...(e.reason === undefined ? {} : { reason: e.reason }),
      ...(e.events === undefined || e.state !== 'completed' ? {} : { events: [...e.events] }),
    };
  }

  /** Resolves at the next change of any ticket. */
  changed(): { promise: Promise<void>; cancel: () => void } {
    let wake = () => {};
    const promise = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.#waiters.add(wake);
    return { promise, cancel: () => this.#waiters.delete(wake) };
  }

  /** Folds one event of the session. */
  add(event: SessionEvent): void {
    if (this.#collect && event.turnId !== null) {
      for (const id of this.#turnInputs.get(event.turnId) ?? []) {
        this.#tickets
          .get(id)
          ?.events?.push({ sequenceNumber: event.sequenceNumber, type: event.type });
      }
    }
    switch (event.type) {
      case 'turn_steer_queued':
        this.#entry(event.payload.pendingInputId);
        break;
      case 'turn_started': {
        const id = event.payload.inputId;
        if (id !== undefined && event.turnId !== null) this.#attach(id, event.turnId, event);
        break;
      }
      case 'turn_steer_drained':
        for (const id of event.payload.pendingInputIds) {
          if (event.turnId !== null) this.#attach(id, event.turnId, event);
        }
        break;
      case 'session_input_promoted': {
        const e = this.#entry(event.payload.pendingInputId);
        if (e.state === 'accepted') e.state = 'delivered';
        e.messageId = event.payload.messageId;
        break;
      }
      case 'turn_steer_discarded': {
        if (event.payload.reason === 'promoted') break;
        const e = this.#entry(event.payload.pendingInputId);
        if (e.state !== 'completed') {
          e.state = 'discarded';
          e.reason = event.payload.reason;
        }
        break;
      }
      case 'turn_complete':
      case 'turn_error': {
        if (event.turnId === null) break;
        const status =
          event.type === 'turn_error'
            ? 'error'
            : event.payload.resultType === 'cancelled'
              ? 'cancelled'
              : 'complete';
        for (const id of this.#turnInputs.get(event.turnId) ?? []) {
          const e = this.#entry(id);
          if (e.state === 'discarded') continue;
          e.state = 'completed';
          e.status = status;
        }
        this.#turnInputs.delete(event.turnId);
        break;
      }
      default:
        return;
    }
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  #attach(inputId: string, turnId: string, start: SessionEvent): void {
    const e = this.#entry(inputId);
    e.turnId = turnId;
    if (this.#collect) e.events = [{ sequenceNumber: start.sequenceNumber, type: start.type }];
    const inputs = this.#turnInputs.get(turnId) ?? [];
    inputs.push(inputId);
    this.#turnInputs.set(turnId, inputs);
  }

  #entry(ticketId: string): Entry {
    let e = this.#tickets.get(ticketId);
    if (e === undefined) {
      e = { state: 'accepted' };
      this.#tickets.set(ticketId, e);
      if (this.#tickets.size > REMEMBERED) {
        const oldest = this.#tickets.keys().next();
        if (oldest.done !== true) this.#tickets.delete(oldest.value);
      }
    }
    return e;
  }
}
