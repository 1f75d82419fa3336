import type { ActionState, SteerDiscardReason, SteerRejectReason } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';
import { ActionBook, type ActionLifecycle } from './action-lifecycle.ts';
import { decideAdmission, inputPreview, type RequestedDelivery } from './admission.ts';
import type { InputFile, QueuePolicy } from './feature.ts';
import { promoteUserInput } from './input-promotion.ts';
import { InputQueue, type PendingInput } from './input-queue.ts';
import type { LedgerBook } from './ledger-book.ts';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TranscriptWriter, UserMessageWrite } from './transcript-writer.ts';
import type { TurnOutcome } from './turn-runner.ts';
import { userContent } from './user-content.ts';

/** A running or finished turn as seen by the caller. */
export interface TurnTicket {
  readonly turnId: string;
  readonly done: Promise<TurnOutcome>;
}

/** Options of {@link InputDispatcher.submit} (and `RuntimeSession.submit`). */
export interface SubmitOptions {
  /** The input's command id (= ledger id, R14.1); generated when absent. */
  readonly inputId?: string | undefined;
  /** How to deliver it while a turn runs; `queue` by default. */
  readonly delivery?: RequestedDelivery | undefined;
  /** The turn the submitter saw running; another one means `expected_turn_mismatch`. */
  readonly expectedTurnId?: string | undefined;
  /** The files its `@file` references named (R7.3), read at normalisation. */
  readonly files?: readonly InputFile[] | undefined;
}

/** Where a queued or guided input ended up (R14.3). */
export type InputSettlement =
  | { readonly kind: 'started'; readonly turnId: string; readonly done: Promise<TurnOutcome> }
  | { readonly kind: 'drained'; readonly turnId: string; readonly messageId: string }
  | { readonly kind: 'discarded'; readonly reason: SteerDiscardReason }
  | { readonly kind: 'abandoned' };

/** The answer to a submission (R12.4 "accepted", R14.4). */
export type Admission =
  | {
      readonly ok: true;
      readonly inputId: string;
      readonly delivery: 'startNow';
      readonly turnId: string;
      readonly done: Promise<TurnOutcome>;
    }
  | {
      readonly ok: true;
      readonly inputId: string;
      readonly delivery: 'queue' | 'guide';
      readonly targetTurnId: string | null;
      readonly queueLength: number;
      readonly settled: Promise<InputSettlement>;
    }
  | {
      /** A slash command run directly (R12.1): nothing was admitted or sent to the model. */
      readonly ok: true;
      readonly inputId: string;
      readonly delivery: 'command';
      readonly command: string;
      readonly result: Readonly<Record<string, unknown>>;
    }
  | { readonly ok: false; readonly inputId: string; readonly reason: SteerRejectReason };

/** What the stream says of an input admitted before this load: its turn, if it got one. */
export interface EarlierInput {
  readonly turnId?: string | undefined;
}

/** How many admissions a session remembers, to answer a retried submission (idempotency). */
const REMEMBERED_ADMISSIONS = 1_024;

/** The running turn as admission sees it. */
interface ActiveTurnView {
  readonly turnId: string;
  /** None for a turn a feature started (docs/decisions/0231). */
  readonly inputId: string | undefined;
  /** True once it was interrupted: it takes no more guidance. */
  readonly stopping: boolean;
}

export interface InputDispatcherDeps {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  /** Inputs larger than this (UTF-8 bytes) are rejected `input_too_large` (R14.4). */
  readonly maxInputBytes?: number | undefined;
  /** The conversation: drained guided inputs are appended as user messages. */
  readonly history: ModelMessage[];
  /** The session's ledger statuses (R14.2): checked before every steer event. */
  readonly ledger: LedgerBook;
  /** The running turn, if any. */
  readonly activeTurn: () => ActiveTurnView | undefined;
  /** How the lanes hand their actions over now (R12.2, docs/decisions/0236). */
  readonly policy: () => QueuePolicy;
  /** Inputs this session admitted before it was loaded here (the stream's), by id. */
  readonly earlierInputs?: ReadonlyMap<string, EarlierInput> | undefined;
  /** Starts a turn for an input; `admitted` when `turn_steer_queued` was already emitted. */
  readonly startTurn: (
    input: string,
    files: readonly InputFile[],
    inputId: string,
    traceId: string,
    admitted: boolean,
  ) => TurnTicket;
}

/**
 * A session's input admission and dispatch (R12, R14, docs/decisions/0073): decides each
 * submission, keeps what waits in one synchronous {@link InputQueue}, and gives every waiting
 * input its next place (its own turn, the running turn's next step boundary, or a discard)
 * in the same synchronous slice that takes it out, so it is always in exactly one place
 * (R14.3).
 */
export class InputDispatcher {
  readonly #d: InputDispatcherDeps;
  readonly #queue = new InputQueue();
  readonly #settlers = new Map<string, (s: InputSettlement) => void>();
  /** Every accepted action's lifecycle (R12.3, docs/decisions/0235). */
  readonly #actions = new ActionBook();
  /** The actions each running turn carries (its input and the guided ones it took). */
  readonly #running = new Map<string, string[]>();
  /** The rest of a followUp batch, by the turn its first input started (0236). */
  readonly #batches = new Map<string, PendingInput[]>();
  readonly #admitted = new Map<
    string,
    Admission & { ok: true; delivery: 'startNow' | 'queue' | 'guide' }
  >();

  constructor(deps: InputDispatcherDeps) {
    this.#d = deps;
  }

  /**
   * A submission with an input id this session already accepted is the same input (a client
   * retrying after a lost reply, issue 9): the first answer again, same turn, never a
   * second turn. One accepted before this load answers `duplicate_input` with its turn.
   */
  #resubmitted(inputId: string): Admission | undefined {
    const known = this.#admitted.get(inputId);
    if (known !== undefined) return known;
    const earlier = this.#d.earlierInputs?.get(inputId);
    if (earlier === undefined) return undefined;
    throw new RuntimeError('duplicate_input', `input ${inputId} was accepted before`, {
      inputId,
      ...(earlier.turnId === undefined ? {} : { turnId: earlier.turnId }),
    });
  }

  #remember(admission: Admission & { ok: true; delivery: 'startNow' | 'queue' | 'guide' }): void {
    this.#admitted.set(admission.inputId, admission);
    if (this.#admitted.size > REMEMBERED_ADMISSIONS) {
      const oldest = this.#admitted.keys().next();
      if (oldest.done !== true) this.#admitted.delete(oldest.value);
    }
  }

  /** Number of waiting inputs (queued and guided). */
  get size(): number {
    return this.#queue.size;
  }

  /** Number of waiting inputs that will start their own turn. */
  get queuedCount(): number {
    return this.#queue.queuedCount;
  }

  /** Ids of the waiting inputs, in order. */
  ids(): string[] {
    return this.#queue.ids();
  }

  /**
   * Admits an input (R12.1, R14): rejected inputs get `turn_steer_rejected`; otherwise it
   * starts a turn now, or waits (`turn_steer_queued`) for its own turn (`queue`) or for the
   * running turn's next model step boundary (`guide`).
   */
  async submit(input: string, options: SubmitOptions): Promise<Admission> {
    const inputId = options.inputId ?? this.#d.ids.newId('in');
    const again = this.#resubmitted(inputId);
    if (again !== undefined) return again;
    const active = this.#d.activeTurn();
    const bytes = new TextEncoder().encode(input).length;
    const decision = decideAdmission({
      text: input,
      bytes,
      maxBytes: this.#d.maxInputBytes ?? Number.POSITIVE_INFINITY,
      requestedDelivery: options.delivery,
      expectedTurnId: options.expectedTurnId,
      activeTurnId: active?.turnId,
      activeTurnStopping: active?.stopping ?? false,
      queuedCount: this.#queue.queuedCount,
    });
    const traceId = this.#d.ids.newTraceId();
    const files = options.files ?? [];
    if (!decision.ok) {
      await this.#d.emitter.emit('turn_steer_rejected', null, traceId, {
        reason: decision.reason,
        commandId: inputId,
        inputPreview: inputPreview(input),
        inputSize: bytes,
      });
      return { ok: false, inputId, reason: decision.reason };
    }
    if (decision.delivery === 'startNow') {
      // Selected at once: it never waited, so its dispatch is not reported (0235).
      this.#actions.add(inputId, false).select(this.#d.ids.newId('rsv'));
      const ticket = this.#d.startTurn(input, files, inputId, traceId, false);
      const admission = { ok: true, inputId, delivery: 'startNow', ...ticket } as const;
      this.#remember(admission);
      return admission;
    }
    const item: PendingInput = {
      inputId,
      input,
      files,
      delivery: decision.delivery,
      targetTurnId: active?.turnId ?? null,
      traceId,
    };
    this.#queue.add(item);
    this.#actions.add(inputId, true);
    const settled = new Promise<InputSettlement>((resolve) => this.#settlers.set(inputId, resolve));
    const queueLength = this.#queue.size;
    const admission = {
      ok: true,
      inputId,
      delivery: decision.delivery,
      targetTurnId: item.targetTurnId,
      queueLength,
      settled,
    } as const;
    this.#remember(admission);
    await this.#emitQueued(item, decision.delivery, queueLength);
    return admission;
  }

  /** Flow 1: an input that starts a turn at once is admitted to the ledger first (R6). */
  async admitStartNow(
    input: string,
    files: readonly InputFile[],
    inputId: string,
    traceId: string,
  ): Promise<void> {
    await this.#emitQueued(
      { inputId, input, files, delivery: 'queue', targetTurnId: null, traceId },
      'startNow',
      0,
    );
  }

  /** A user removes a waiting input: `turn_steer_discarded` (`user_removed`, R14.2 cancelled). */
  async remove(inputId: string): Promise<void> {
    if (!this.#queue.has(inputId)) {
      // A known action that left the queue: its lifecycle refuses (`illegal_transition`).
      this.#actions.get(inputId)?.remove();
      throw new RuntimeError('input_not_pending', `input ${inputId} is not waiting`, { inputId });
    }
    this.#actions.get(inputId)?.remove();
    const item = this.#queue.remove(inputId);
    if (item === undefined) throw new Error(`input ${inputId} left the queue`);
    this.#d.ledger.apply(inputId, { kind: 'cancel' });
    this.#settle(inputId, { kind: 'discarded', reason: 'user_removed' });
    await this.#d.emitter.emit('turn_steer_discarded', null, item.traceId, {
      pendingInputId: inputId,
      reason: 'user_removed',
    });
    // The control event of a cancellation (issue 11 item 4, 0233).
    await this.#d.emitter.emit('cancel', null, item.traceId, { inputId, reason: 'user_removed' });
  }

  /**
   * Moves the listed waiting inputs to the front, in that order (the others keep theirs),
   * and emits `turn_steer_reordered` with the whole new order (R14.4). Returns it.
   */
  async reorder(orderedInputIds: readonly string[]): Promise<readonly string[]> {
    const result = this.#queue.reorder(orderedInputIds);
    if (!result.ok) {
      throw new RuntimeError('input_not_pending', `input ${result.inputId}: ${result.reason}`, {
        inputId: result.inputId,
        reason: result.reason,
      });
    }
    for (const inputId of orderedInputIds) this.#d.ledger.apply(inputId, { kind: 'reorder' });
    await this.#d.emitter.emit('turn_steer_reordered', null, this.#d.ids.newTraceId(), {
      orderedPendingInputIds: [...result.order],
    });
    return result.order;
  }

  /**
   * Edits a waiting input in place (docs/decisions/0222): same id, position and delivery,
   * new text and files. On the wire it is `turn_steer_queued` again with the same pending
   * input id, which the projection and the ledger take as "replaced in place" (R16.4: only
   * while admitted). An input that left is `input_not_pending` (R10.3); an empty or
   * oversized text is refused as a submission would be.
   */
  async edit(inputId: string, input: string, files: readonly InputFile[]): Promise<void> {
    this.#assertWaiting(inputId);
    const bytes = new TextEncoder().encode(input).length;
    if (input.trim() === '') {
      throw new RuntimeError('empty_input', 'an edited input needs some text', { inputId });
    }
    const limit = this.#d.maxInputBytes ?? Number.POSITIVE_INFINITY;
    if (bytes > limit) {
      throw new RuntimeError('prompt_too_large', `the edited input holds ${bytes} bytes`, {
        inputId,
        limit,
      });
    }
    this.#d.ledger.apply(inputId, { kind: 'edit' });
    const edited = this.#queue.edit(inputId, input, files);
    if (edited !== undefined) await this.#emitQueued(edited, edited.delivery, this.#queue.size);
  }

  /**
   * Moves a waiting input to `position` (0 = next), the others keeping their order, and
   * emits `turn_steer_reordered` with the whole new order (R14.4). Consults the queue as it
   * is now (R10.3): an input that already left is `input_not_pending`.
   */
  async move(inputId: string, position: number): Promise<readonly string[]> {
    this.#assertWaiting(inputId);
    const size = this.#queue.size;
    if (position >= size) {
      throw new RuntimeError(
        'position_out_of_range',
        `position ${position} is past the last of ${size} waiting inputs (0-based)`,
        { position, size },
      );
    }
    this.#d.ledger.apply(inputId, { kind: 'reorder' });
    const order = this.#queue.move(inputId, position) ?? [];
    await this.#d.emitter.emit('turn_steer_reordered', null, this.#d.ids.newTraceId(), {
      orderedPendingInputIds: [...order],
    });
    return order;
  }

  /**
   * A user clears the queue: every waiting input leaves (`turn_steer_discarded`
   * `user_cleared`, R14.2 cancelled). An empty queue is a no-op. Returns the ids, in order.
   */
  async clear(): Promise<readonly string[]> {
    const items = this.#queue.takeAll();
    for (const item of items) {
      this.#actions.get(item.inputId)?.remove();
      this.#d.ledger.discard(item.inputId, 'user_cleared');
      this.#settle(item.inputId, { kind: 'discarded', reason: 'user_cleared' });
    }
    for (const item of items) {
      await this.#d.emitter.emit('turn_steer_discarded', null, item.traceId, {
        pendingInputId: item.inputId,
        reason: 'user_cleared',
      });
    }
    return items.map((i) => i.inputId);
  }

  /**
   * The running turn's step boundary (R14.3 `guide`): every guided input becomes a user
   * message of this turn, promoted in the ledger (R7.3), then `turn_steer_drained`.
   * Returns the last injected message id, if any.
   */
  async drainGuided(turnId: string, traceId: string): Promise<string | undefined> {
    const batch = this.#batches.get(turnId) ?? [];
    this.#batches.delete(turnId);
    const limit = this.#d.policy().steeringMode === 'one_at_a_time' ? 1 : undefined;
    const items = [...batch, ...this.#queue.takeGuided(limit)];
    if (items.length === 0) return undefined;
    const messageIds: string[] = [];
    const drained: PendingInput[] = [];
    for (const item of items) {
      const messageId = this.#d.ids.newId('msg');
      // A batch's inputs were selected with its first (reserved already).
      if (!batch.includes(item)) await this.selected(item.inputId, item.traceId);
      await this.committing(item.inputId, item.traceId);
      const write = await promoteUserInput(this.#d, {
        turnId,
        traceId,
        messageId,
        input: item.input,
        files: item.files,
        inputId: item.inputId,
      });
      if (!write.committed) {
        // Not in the transcript, so not in the turn either: it ends `failed` (issue 9).
        const error = await this.failStart(item.inputId, traceId, write);
        this.#settle(item.inputId, { kind: 'discarded', reason: 'start_failed' });
        this.#d.logger.warn({ err: error, inputId: item.inputId }, 'guided input not delivered');
        continue;
      }
      this.#d.history.push({ role: 'user', content: userContent(item.input, item.files) });
      this.running(item.inputId, turnId);
      messageIds.push(messageId);
      drained.push(item);
      this.#settle(item.inputId, { kind: 'drained', turnId, messageId });
    }
    if (drained.length === 0) return undefined;
    await this.#d.emitter.emit('turn_steer_drained', turnId, traceId, {
      pendingInputIds: drained.map((i) => i.inputId),
      injectedMessageIds: messageIds,
      inputs: drained.map((i) => ({ pendingInputId: i.inputId, input: i.input })),
    });
    return messageIds.at(-1);
  }

  /**
   * An accepted input whose user message did not commit (R14.2 `failed`): says so on the
   * wire (`turn_steer_discarded`, `start_failed`; the worker closes its ledger row `failed`)
   * and returns the error its submitter gets.
   */
  async failStart(
    inputId: string,
    traceId: string,
    write: UserMessageWrite,
  ): Promise<RuntimeError> {
    this.#d.ledger.discard(inputId, 'start_failed');
    this.#actions.get(inputId)?.to('failed');
    await this.#d.emitter.emit('turn_steer_discarded', null, traceId, {
      pendingInputId: inputId,
      reason: 'start_failed',
    });
    return new RuntimeError(
      'write_not_confirmed',
      write.failure === 'refused'
        ? `input ${inputId} was not delivered: its ledger row is no longer admitted`
        : `input ${inputId} was not delivered: the persistence worker did not confirm its message`,
      { inputId, failure: write.failure ?? 'unconfirmed' },
    );
  }

  /**
   * After a turn: guided inputs it never reached fall back to the queue when it completed
   * (`turn_steer_delivery_changed`) or are discarded with it (`turn_cancelled`,
   * `turn_failed`); then, unless the session is closing, the next queued input starts its
   * own turn (R14.3).
   */
  afterTurn(status: TurnOutcome['status'], closing: boolean, startNext = true): void {
    const log = (err: unknown) =>
      this.#d.logger.warn(
        { err, sessionId: this.#d.emitter.sessionId },
        'queue bookkeeping event failed',
      );
    if (status === 'complete' && !closing) {
      for (const item of this.#queue.guided()) {
        item.delivery = 'queue';
        try {
          this.#d.ledger.apply(item.inputId, { kind: 'edit' });
        } catch (err) {
          log(err);
          continue;
        }
        void this.#d.emitter
          .emit('turn_steer_delivery_changed', null, item.traceId, {
            pendingInputId: item.inputId,
            requestedDelivery: 'guide',
            admittedDelivery: 'queue',
            fallbackReasonCode: 'turn_ended',
          })
          .catch(log);
      }
    } else {
      const reason = status === 'error' ? 'turn_failed' : 'turn_cancelled';
      for (const item of this.#queue.takeGuided()) this.#discard(item, reason, log);
    }
    // A turn admitted while this one was ending runs already; it starts the next itself.
    if (closing || !startNext) return;
    this.startNext();
  }

  /**
   * R12.5's selection once the run is idle: the next followUp action starts its turn; with
   * followUp mode `all`, the consecutive followUp actions at the head go with it as one
   * batch, committed before the turn's first model request (docs/decisions/0236). Nothing
   * starts while auto-drain is off. Returns whether a turn started.
   */
  startNext(): boolean {
    const policy = this.#d.policy();
    if (!policy.autoDrain) return false;
    const run =
      policy.followUpMode === 'all'
        ? this.#queue.takeQueuedRun()
        : [this.#queue.takeNextQueued()].filter((i): i is PendingInput => i !== undefined);
    const [next, ...rest] = run;
    if (next === undefined) return false;
    const log = (err: unknown) =>
      this.#d.logger.warn({ err, sessionId: this.#d.emitter.sessionId }, 'selection event failed');
    for (const item of run) void this.selected(item.inputId, item.traceId).catch(log);
    const ticket = this.#d.startTurn(next.input, next.files, next.inputId, next.traceId, true);
    if (rest.length > 0) this.#batches.set(ticket.turnId, rest);
    this.#settle(next.inputId, { kind: 'started', ...ticket });
    return true;
  }

  /** `close`: discards everything that waits (`turn_cancelled`). */
  discardAll(): void {
    const log = (err: unknown) =>
      this.#d.logger.warn({ err, sessionId: this.#d.emitter.sessionId }, 'discard on close failed');
    for (const item of this.#queue.takeAll()) this.#discard(item, 'turn_cancelled', log);
  }

  /** Lease lost or shutdown: waiting inputs stay `admitted` for the next owner (R14.2). */
  abandonAll(): void {
    const batched = [...this.#batches.values()].flat();
    this.#batches.clear();
    for (const item of [...batched, ...this.#queue.takeAll()]) {
      this.#settle(item.inputId, { kind: 'abandoned' });
    }
  }

  #discard(item: PendingInput, reason: SteerDiscardReason, log: (err: unknown) => void): void {
    this.#actions.get(item.inputId)?.remove();
    this.#settle(item.inputId, { kind: 'discarded', reason });
    try {
      this.#d.ledger.discard(item.inputId, reason);
    } catch (err) {
      log(err);
      return;
    }
    void this.#d.emitter
      .emit('turn_steer_discarded', null, item.traceId, { pendingInputId: item.inputId, reason })
      .catch(log);
  }

  /** The lifecycle state of an action this session accepted, if it remembers it (R12.3). */
  actionState(inputId: string): ActionState | undefined {
    return this.#actions.get(inputId)?.state;
  }

  /**
   * The scheduler took the action (R12.3 `selected`): a reservation, reported as
   * `turn_steer_dispatch_changed` `reserved` when it had waited in the queue.
   */
  async selected(inputId: string, traceId: string): Promise<void> {
    const action = this.#actions.of(inputId);
    if (action.state !== 'selected') action.select(this.#d.ids.newId('rsv'));
    await this.#dispatchChanged(action, 'reserved', traceId);
  }

  /** Its turn prepares (R12.3 `preparing`): nothing is written for it yet. */
  preparing(inputId: string): void {
    this.#actions.of(inputId).to('preparing');
  }

  /** Its user message is being written (R12.3 `committing`): `promoting` on the wire. */
  async committing(inputId: string, traceId: string): Promise<void> {
    const action = this.#actions.of(inputId);
    const reservationId = action.reservationId;
    action.to('committing');
    await this.#dispatchChanged(action, 'promoting', traceId, reservationId);
  }

  /** Its message is in the transcript and `turnId` runs on it (R12.3 `running`). */
  running(inputId: string, turnId: string): void {
    this.#actions.of(inputId).to('running');
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
      const action = this.#actions.get(inputId);
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
    const action = this.#actions.of(inputId);
    action.to('queued');
    action.announced = true;
    await this.#dispatchChanged(action, 'queued', traceId, null);
    await this.selected(inputId, traceId);
  }

  /** A prepared turn that stopped before its message was written: the action failed. */
  failed(inputId: string): void {
    const action = this.#actions.get(inputId);
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
      const action = this.#actions.of(item.inputId);
      action.to('queued');
      void this.#dispatchChanged(action, 'queued', item.traceId, null).catch(log);
    }
    this.#queue.putBack(rest);
  }

  #assertWaiting(inputId: string): void {
    if (this.#queue.has(inputId)) return;
    const state = this.#actions.get(inputId)?.state;
    throw new RuntimeError(
      'input_not_pending',
      state === undefined ? `input ${inputId} is not waiting` : `input ${inputId} is ${state}`,
      { inputId, ...(state === undefined ? {} : { state }) },
    );
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

  #settle(inputId: string, settlement: InputSettlement): void {
    this.#settlers.get(inputId)?.(settlement);
    this.#settlers.delete(inputId);
  }

  #emitQueued(
    item: PendingInput,
    delivery: 'startNow' | 'queue' | 'guide',
    queueLength: number,
  ): Promise<unknown> {
    this.#d.ledger.admit(item.inputId);
    return this.#d.emitter.emit('turn_steer_queued', null, item.traceId, {
      pendingInputId: item.inputId,
      input: item.input,
      ...(item.files.length === 0
        ? {}
        : {
            attachments: item.files.map((f) => ({
              fileName: f.path,
              mime: f.mime,
              bytes: f.bytes,
            })),
          }),
      inputPreview: inputPreview(item.input),
      inputSize: new TextEncoder().encode(item.input).length,
      delivery,
      targetTurnId: item.targetTurnId,
      queueLength,
    });
  }
}
