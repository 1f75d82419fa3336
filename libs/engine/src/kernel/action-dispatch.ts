import type { ActionState } from '@agentwire/contracts';
import { ActionBook, type ActionLifecycle } from './action-lifecycle.ts';
import type { PendingInput } from './input-queue.ts';
import type { IdSource, RuntimeLogger } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TurnOutcome } from './turn-runner.ts';

/** What {@link ActionDispatch} needs of its session. */
export interface ActionDispatchDeps {
  readonly emitter: SessionEmitter;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  /** Puts inputs back at the head of the queue (a batch its turn never reached). */
  readonly putBack: (items: readonly PendingInput[]) => void;
}

/**
 * Where each accepted action is in its lifecycle (R12.3, docs/decisions/0235): every move
 * goes through its {@link ActionLifecycle}; the dispatch of an input that waited is reported
 * as `turn_steer_dispatch_changed`; the actions a turn carries end with it; the rest of a
 * followUp batch (0236) waits here for its turn's first step boundary.
 */
export class ActionDispatch {
  readonly #d: ActionDispatchDeps;
  readonly #book = new ActionBook();
  /** The actions each running turn carries (its input and the guided ones it took). */
  readonly #running = new Map<string, string[]>();
  /** The rest of a followUp batch, by the turn its first input started (0236). */
  readonly #batches = new Map<string, PendingInput[]>();

  constructor(deps: ActionDispatchDeps) {
    this.#d = deps;
  }

  /** A newly accepted action, `queued`; `announced` when it waits in the queue. */
  add(inputId: string, announced: boolean): ActionLifecycle {
    return this.#book.add(inputId, announced);
  }

  /** The action of `inputId`, if the session remembers it. */
  get(inputId: string): ActionLifecycle | undefined {
    return this.#book.get(inputId);
  }

  /** The rest of a followUp batch waits for `turnId`'s first step boundary. */
  holdBatch(turnId: string, rest: readonly PendingInput[]): void {
    if (rest.length > 0) this.#batches.set(turnId, [...rest]);
  }

  /** Takes the rest of `turnId`'s batch (its first step boundary). */
  takeBatch(turnId: string): PendingInput[] {
    const rest = this.#batches.get(turnId) ?? [];
    this.#batches.delete(turnId);
    return rest;
  }

  /** Takes every batch's rest (the session is abandoned). */
  takeAllBatches(): PendingInput[] {
    const all = [...this.#batches.values()].flat();
    this.#batches.clear();
    return all;
  }

  /** The lifecycle state of an action this session accepted, if it remembers it (R12.3). */
  state(inputId: string): ActionState | undefined {
    return this.#book.get(inputId)?.state;
  }

  /**
   * The scheduler took the action (R12.3 `selected`): a reservation, reported as
   * `turn_steer_dispatch_changed` `reserved` when it had waited in the queue.
   */
  async selected(inputId: string, traceId: string): Promise<void> {
    const action = this.#book.of(inputId);
    if (action.state !== 'selected') action.select(this.#d.ids.newId('rsv'));
    await this.#dispatchChanged(action, 'reserved', traceId);
  }

  /** Its turn prepares (R12.3 `preparing`): nothing is written for it yet. */
  preparing(inputId: string): void {
    this.#book.of(inputId).to('preparing');
  }

  /** Its user message is being written (R12.3 `committing`): `promoting` on the wire. */
  async committing(inputId: string, traceId: string): Promise<void> {
    const action = this.#book.of(inputId);
    const reservationId = action.reservationId;
    action.to('committing');
    await this.#dispatchChanged(action, 'promoting', traceId, reservationId);
  }

  /** Its message is in the transcript and `turnId` runs on it (R12.3 `running`). */
  running(inputId: string, turnId: string): void {
    this.#book.of(inputId).to('running');
    const carried = this.#running.get(turnId) ?? [];
    carried.push(inputId);
    this.#running.set(turnId, carried);
  }

  /** A turn ended: the actions it carried end with it (`completed`, `cancelled`, `failed`). */
  turnEnded(turnId: string, status: TurnOutcome['status']): void {
    this.#returnBatch(turnId);
    const ended: ActionState =
      status === 'complete' ? 'completed' : status === 'cancelled' ? 'cancelled' : 'failed';
    for (const inputId of this.#running.get(turnId) ?? []) {
      const action = this.#book.get(inputId);
      if (action?.state === 'running') action.to(ended);
    }
    this.#running.delete(turnId);
  }

  /**
   * The epoch moved on while the action prepared (R12.5): it goes back to `queued`
   * (`turn_steer_dispatch_changed` `queued`), never `failed`, and the scheduler takes it
   * again at once: it was the head of the queue and stays so.
   */
  async requeue(inputId: string, traceId: string): Promise<void> {
    const action = this.#book.of(inputId);
    action.to('queued');
    action.announced = true;
    await this.#dispatchChanged(action, 'queued', traceId, null);
    await this.selected(inputId, traceId);
  }

  /** A prepared turn that stopped before its message was written: the action failed. */
  failed(inputId: string): void {
    const action = this.#book.get(inputId);
    if (action !== undefined && !['completed', 'failed', 'cancelled'].includes(action.state)) {
      action.to('failed');
    }
  }

  /**
   * A batch's inputs its turn never reached (it ended before its first request) go back to
   * the head of the queue, `queued` again: nothing of them was written (0236).
   */
  #returnBatch(turnId: string): void {
    const rest = this.#batches.get(turnId);
    if (rest === undefined) return;
    this.#batches.delete(turnId);
    const log = (err: unknown) =>
      this.#d.logger.warn({ err, sessionId: this.#d.emitter.sessionId }, 'batch return failed');
    for (const item of rest) {
      const action = this.#book.of(item.inputId);
      action.to('queued');
      void this.#dispatchChanged(action, 'queued', item.traceId, null).catch(log);
    }
    this.#d.putBack(rest);
  }

  #dispatchChanged(
    action: ActionLifecycle,
    state: 'queued' | 'reserved' | 'promoting',
    traceId: string,
    reservationId: string | null = action.reservationId,
  ): Promise<unknown> {
    if (!action.announced) return Promise.resolve();
    return this.#d.emitter.emit('turn_steer_dispatch_changed', null, traceId, {
      pendingInputId: action.inputId,
      state,
      reservationId,
    });
  }
}
