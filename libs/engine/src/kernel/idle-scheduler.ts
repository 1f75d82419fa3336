import type { SyntheticTurn } from './feature.ts';
import type { RuntimeLogger } from './ports.ts';

/** What {@link IdleScheduler} asks of its session. */
export interface IdleSchedulerDeps {
  readonly sessionId: string;
  readonly logger: RuntimeLogger;
  /** No turn runs, and the session is open and can append. */
  readonly free: () => boolean;
  /** Number of inputs waiting: a session with any is not idle. */
  readonly waiting: () => number;
  /** Starts the next queued input's turn if auto-drain allows (0236); whether it did. */
  readonly startNext: () => boolean;
  /** The features' idle hooks (`whenIdle`, 0231); undefined when none has anything to do. */
  readonly whenIdle: () => Promise<SyntheticTurn | undefined> | undefined;
  /** Starts a feature's turn on its synthetic notice. */
  readonly startFeatureTurn: (turn: SyntheticTurn) => void;
}

/**
 * The session's one scheduler for what starts by itself (R12.5, docs/decisions/0231, 0236):
 * once nothing runs, the queue's next input first, then a feature's turn. One idle check
 * runs at a time; a wake during one runs another after it. A turn a feature asked for
 * starts only if the session is still idle when the answer comes.
 */
export class IdleScheduler {
  readonly #d: IdleSchedulerDeps;
  #check: Promise<void> | undefined;
  #again = false;

  constructor(deps: IdleSchedulerDeps) {
    this.#d = deps;
  }

  /** True while a feature's idle check runs (in-flight work for residency, R11.2). */
  get checking(): boolean {
    return this.#check !== undefined;
  }

  /** Nothing runs, nothing waits, and the session can still append. */
  idle(): boolean {
    return this.#d.free() && this.#d.waiting() === 0;
  }

  /** Looks for something to start: at once when the session is free, else later. */
  wake(): void {
    // Queued inputs first (auto-drain turned on, 0236): they were there before any goal.
    if (this.#d.free() && this.#d.startNext()) return;
    if (this.#check !== undefined) {
      this.#again = true;
      return;
    }
    if (!this.idle()) return;
    const asked = this.#d.whenIdle();
    if (asked === undefined) return;
    this.#check = asked
      .then((turn) => {
        // A submission took the session meanwhile: its end asks again.
        if (turn !== undefined && this.idle()) this.#d.startFeatureTurn(turn);
      })
      .catch((err: unknown) =>
        this.#d.logger.warn({ err, sessionId: this.#d.sessionId }, 'idle check failed'),
      )
      .finally(() => {
        this.#check = undefined;
        if (!this.#again) return;
        this.#again = false;
        this.wake();
      });
  }
}
