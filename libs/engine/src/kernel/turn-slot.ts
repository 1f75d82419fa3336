import type { SessionEvent } from '@agentwire/contracts';
import { BrokerUnavailableError } from './early-turn-end.ts';
import type { IdSource, RuntimeLogger } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TurnStart } from './session-turn.ts';
import type { TurnTicket } from './submission.ts';
import type { TurnOutcome } from './turn-runner.ts';

/** The running turn, as the session's other parts may read it. */
export interface ActiveTurn {
  readonly turnId: string;
  readonly inputId: string | undefined;
  readonly controller: AbortController;
  readonly done: Promise<TurnOutcome>;
  /** Its `turn_complete` or `turn_error` is appended: admission treats it as over. */
  readonly ending: boolean;
  /** Its input is not committed yet (R12.3 `preparing`): an interrupt re-queues it (R12.5). */
  readonly preparing: boolean;
  /** It runs a queued session-level command, not the model (0238). */
  readonly command: boolean;
}

type Slot = { -readonly [K in keyof ActiveTurn]: ActiveTurn[K] };

/** Dependencies of {@link TurnSlot}. */
export interface TurnSlotDeps {
  readonly emitter: SessionEmitter;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  /** A turn's life (`runSessionTurn` with the session's parts), after `previous` ended. */
  readonly run: (
    spec: TurnStart,
    signal: AbortSignal,
    previous: Promise<unknown> | undefined,
  ) => Promise<TurnOutcome>;
  /** A turn's promise settled; `idle` when no later turn took the slot meanwhile. */
  readonly settled: (turnId: string, status: TurnOutcome['status'], idle: boolean) => void;
}

/**
 * The session's one running turn at a time and its epoch (R12.5): starts a turn (after the
 * one whose end is appended), interrupts it, ends it when the broker stayed away, and moves
 * the epoch on under any preparation when an interrupt, a rewind or a fork happens.
 */
export class TurnSlot {
  readonly #d: TurnSlotDeps;
  #active: Slot | undefined;
  /** Bumped by interrupts and rewinds: preparation that began under an older one is stale. */
  #epoch = 0;

  constructor(deps: TurnSlotDeps) {
    this.#d = deps;
  }

  /** The running turn, if any. */
  get active(): ActiveTurn | undefined {
    return this.#active;
  }

  get epoch(): number {
    return this.#epoch;
  }

  /** The turn's input committed: an interrupt ends it from now on. */
  prepared(turnId: string): void {
    if (this.#active?.turnId === turnId) this.#active.preparing = false;
  }

  /** Follows the session's appended events: a turn's end, and what moves the session. */
  observe(event: SessionEvent): void {
    const active = this.#active;
    const ends = event.type === 'turn_complete' || event.type === 'turn_error';
    if (ends && active !== undefined && event.turnId === active.turnId) active.ending = true;
    // A rewind or a fork moves the session under any preparation, as an interrupt does
    // (R12.5, issue 11 item 4).
    if (event.type === 'rewind_triggered' || event.type === 'session_forked') this.#epoch += 1;
  }

  /** Starts `spec`'s turn; a turn whose end is appended may still be finishing: it waits. */
  start(spec: TurnStart): TurnTicket {
    const controller = new AbortController();
    let status: TurnOutcome['status'] = 'error';
    const previous = this.#active?.done;
    const done = this.#d
      .run(spec, controller.signal, previous)
      .then((outcome) => {
        status = outcome.status;
        return outcome;
      })
      .finally(() => {
        if (this.#active === active) this.#active = undefined;
        this.#d.settled(spec.turnId, status, this.#active === undefined);
      });
    // Awaiting a turn is optional (a prompt without `wait`, a queued input, a feature's
    // turn): a failed one is on the wire and in the log, and must not be an unhandled
    // rejection, which ends the process and every session it hosts.
    done.catch(() => undefined);
    const active: Slot = {
      turnId: spec.turnId,
      inputId: spec.inputId,
      controller,
      done,
      ending: false,
      preparing: true,
      command: spec.command !== undefined,
    };
    this.#active = active;
    return { turnId: spec.turnId, done };
  }

  /**
   * Interrupts the running turn; it ends as `turn_complete` with `cancelled`. A turn still
   * preparing (its input not committed) is not ended: the epoch moves on, and its input is
   * re-queued and runs next, once (R12.5, docs/decisions/0235); `requeued` says so. A host
   * that stops (SIGTERM) passes `requeuePreparing: false`: every turn ends.
   */
  interrupt(
    options: { readonly requeuePreparing?: boolean } = {},
  ): TurnTicket & { readonly requeued: boolean } {
    const active = this.#active;
    if (active === undefined || active.ending)
      throw new RuntimeError('no_active_turn', 'no turn is running');
    this.#epoch += 1;
    // Said before the turn's end, which the abort brings (issue 11 item 4, 0233).
    void this.#d.emitter
      .emit('interrupt', active.turnId, this.#d.ids.newTraceId(), { reason: 'user' })
      .catch((err: unknown) =>
        this.#d.logger.warn(
          { err, sessionId: this.#d.emitter.sessionId },
          'interrupt event failed',
        ),
      );
    const requeued =
      options.requeuePreparing !== false && active.preparing && active.inputId !== undefined;
    if (!requeued) active.controller.abort();
    return { turnId: active.turnId, done: active.done, requeued };
  }

  /**
   * The broker has been away for `stalledMs`, past the configured bound (issue 9): the
   * running turn stops and, once its events can go out again, ends as `turn_error`
   * (`broker_unavailable`), with what it left open settled.
   */
  brokerUnavailable(stalledMs: number): void {
    const active = this.#active;
    if (active === undefined || active.ending || active.controller.signal.aborted) return;
    this.#d.logger.warn(
      { sessionId: this.#d.emitter.sessionId, turnId: active.turnId, stalledMs },
      'the broker stayed away past the outage bound: ending the turn',
    );
    active.controller.abort(new BrokerUnavailableError(stalledMs));
  }
}
