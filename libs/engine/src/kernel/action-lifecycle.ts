import type { ActionState } from '@agentwire/contracts';
import { RuntimeError } from './runtime-error.ts';

/**
 * The transition table (R12.3). Besides the forward path:
 * - a guided input goes from `selected` straight to `committing`: it joins the running
 *   turn, which was prepared already;
 * - `selected` and `preparing` go back to `queued` when the epoch moved on under them
 *   (R12.5: stale preparation is re-queued, not failed);
 * - `committing` goes back to `queued` only with a {@link RollbackProof};
 * - a queued action is `cancelled` when a user removes or clears it, or when the session
 *   discards it (its ledger row says which, R14.2);
 * - `failed` is reachable from every state that has taken the action out of the queue: it
 *   was accepted but could not start, or its turn failed (R14.2).
 */
const TRANSITIONS: { readonly [S in ActionState]: readonly ActionState[] } = {
  queued: ['selected', 'cancelled'],
  selected: ['preparing', 'committing', 'queued', 'cancelled', 'failed'],
  preparing: ['committing', 'queued', 'cancelled', 'failed'],
  committing: ['running', 'queued', 'failed'],
  running: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Proof that a rollback from `committing` loses nothing and duplicates nothing (R12.3). */
interface RollbackProof {
  /** The dispatch of the user message settled: no write of it is still in flight. */
  readonly dispatchSettled: true;
  /** The message did not reach the transcript. */
  readonly inTranscript: false;
}

/**
 * True when `to` may follow `from` in the table.
 *
 * @internal Exported for its tests.
 */
export function canTransition(from: ActionState, to: ActionState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** True for the three states an action never leaves. */
function isTerminal(state: ActionState): boolean {
  return TRANSITIONS[state].length === 0;
}

/**
 * One action's place in its lifecycle. Every change goes through {@link to}, which checks
 * the table: an illegal transition is a typed `illegal_transition` error, never a silent
 * change.
 */
export class ActionLifecycle {
  readonly inputId: string;
  #state: ActionState = 'queued';
  /** Set while the scheduler holds the action (selected to committing). */
  #reservationId: string | null = null;
  /** Whether it waited in the queue, so its dispatch is reported on the wire. */
  announced: boolean;

  constructor(inputId: string, announced: boolean) {
    this.inputId = inputId;
    this.announced = announced;
  }

  get state(): ActionState {
    return this.#state;
  }

  get reservationId(): string | null {
    return this.#reservationId;
  }

  /** Moves to `next` (R12.3). A rollback from `committing` needs its proof. */
  to(next: ActionState, proof?: RollbackProof): void {
    const from = this.#state;
    if (!canTransition(from, next)) {
      throw new RuntimeError(
        'illegal_transition',
        `input ${this.inputId} cannot go from ${from} to ${next}`,
        { inputId: this.inputId, from, to: next },
      );
    }
    if (from === 'committing' && next === 'queued') {
      if (proof?.dispatchSettled !== true || proof.inTranscript !== false) {
        throw new RuntimeError(
          'illegal_transition',
          `input ${this.inputId} cannot go back to queued without proof that its message is not in the transcript`,
          { inputId: this.inputId, from, to: next },
        );
      }
    }
    this.#state = next;
    if (next === 'queued' || isTerminal(next)) this.#reservationId = null;
  }

  /**
   * A user removes or clears it: the edge `queued` -> `cancelled` only. Any other state is
   * `illegal_transition` (a running action is interrupted, not removed).
   */
  remove(): void {
    if (this.#state !== 'queued') {
      throw new RuntimeError(
        'illegal_transition',
        `input ${this.inputId} is ${this.#state}: only a queued input can be removed`,
        { inputId: this.inputId, from: this.#state, to: 'cancelled' },
      );
    }
    this.to('cancelled');
  }

  /** `queued` -> `selected`, holding `reservationId` until it commits or goes back. */
  select(reservationId: string): void {
    this.to('selected');
    this.#reservationId = reservationId;
  }
}

/** How many actions a session remembers after they ended, to name their state. */
const REMEMBERED_ACTIONS = 1_024;

/** The session's actions by input id: the live ones and the latest ended ones. */
export class ActionBook {
  readonly #actions = new Map<string, ActionLifecycle>();

  /** A newly accepted action, `queued`. */
  add(inputId: string, announced: boolean): ActionLifecycle {
    const action = new ActionLifecycle(inputId, announced);
    this.#actions.set(inputId, action);
    if (this.#actions.size > REMEMBERED_ACTIONS) this.#forgetOneEnded();
    return action;
  }

  get(inputId: string): ActionLifecycle | undefined {
    return this.#actions.get(inputId);
  }

  /** The action of `inputId`, which must be known here. */
  of(inputId: string): ActionLifecycle {
    const action = this.#actions.get(inputId);
    if (action === undefined) throw new Error(`no action ${inputId} in this session`);
    return action;
  }

  #forgetOneEnded(): void {
    for (const [id, action] of this.#actions) {
      if (isTerminal(action.state)) {
        this.#actions.delete(id);
        return;
      }
    }
  }
}
