import type { SteerDiscardReason } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';
import type { ActionDispatch } from './action-dispatch.ts';
import { decideAdmission, inputPreview } from './admission.ts';
import type { InputFile, QueuePolicy } from './feature.ts';
import { promoteUserInput } from './input-promotion.ts';
import type { InputQueue, PendingInput, SessionCommandAction } from './input-queue.ts';
import type { LedgerBook } from './ledger-book.ts';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import { QueueEditor } from './queue-editor.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type {
  Admission,
  EarlierInput,
  InputSettlement,
  SubmitOptions,
  TurnTicket,
} from './submission.ts';
import type { TranscriptWriter, UserMessageWrite } from './transcript-writer.ts';
import type { TurnOutcome } from './turn-runner.ts';
import { userContent } from './user-content.ts';

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
  /** What waits (shared with the action dispatch, which puts a batch's rest back). */
  readonly queue: InputQueue;
  /** Where each action is in its lifecycle, and its dispatch on the wire (R12.3). */
  readonly actions: ActionDispatch;
  /** The running turn, if any. */
  readonly activeTurn: () => ActiveTurnView | undefined;
  /** How the lanes hand their actions over now (R12.2, docs/decisions/0236). */
  readonly policy: () => QueuePolicy;
  /** A feature runs session-level work (a `/compact`): submissions wait in the queue. */
  readonly sessionBusy?: () => boolean;
  /** Inputs this session admitted before it was loaded here (the stream's), by id. */
  readonly earlierInputs?: ReadonlyMap<string, EarlierInput> | undefined;
  /** Starts a turn for an input, whose `turn_steer_queued` was emitted already. */
  readonly startTurn: (
    input: string,
    files: readonly InputFile[],
    inputId: string,
    traceId: string,
    command?: SessionCommandAction,
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
  readonly #queue: InputQueue;
  readonly #settlers = new Map<string, (s: InputSettlement) => void>();
  /** Every accepted action's lifecycle (R12.3, docs/decisions/0235). */
  readonly #actions: ActionDispatch;
  readonly #admitted = new Map<
    string,
    Admission & { ok: true; delivery: 'startNow' | 'queue' | 'guide' }
  >();

  /** Remove, reorder, edit, move and clear what waits, from any client (0221, 0222). */
  readonly editor: QueueEditor;

  constructor(deps: InputDispatcherDeps) {
    this.#d = deps;
    this.#actions = deps.actions;
    this.#queue = deps.queue;
    this.editor = new QueueEditor({
      ...deps,
      settle: (inputId, settlement) => this.#settle(inputId, settlement),
      emitQueued: (item, delivery, queueLength) => this.#emitQueued(item, delivery, queueLength),
    });
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
      requestedDelivery: options.command === undefined ? options.delivery : undefined,
      expectedTurnId: options.expectedTurnId,
      activeTurnId: active?.turnId,
      activeTurnStopping: active?.stopping ?? false,
      queuedCount: this.#queue.queuedCount,
      sessionBusy: this.#d.sessionBusy?.() ?? false,
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
    // A command action waits in the followUp lane, even when the session became idle
    // meanwhile: the scheduler runs it at once then (0238).
    const delivery = options.command === undefined ? decision.delivery : 'queue';
    if (delivery === 'startNow') {
      // Selected at once: it never waited, so its dispatch is not reported (0235).
      this.#actions.add(inputId, false).select(this.#d.ids.newId('rsv'));
      // Admitted before its turn's first event. The turn does not wait for it (the worker
      // takes the admission and the promotion in any order, 0031; a takeover settles a
      // promotion in flight either way, 0237: one broker round trip less before the
      // commit, issue 11), but the answer does: an input is accepted once it is stored
      // (R14.3), so a runtime that lost its lease or dies meanwhile accepts nothing.
      const stored = this.#admitStartNow(input, files, inputId, traceId);
      stored.catch((err: unknown) =>
        this.#d.logger.warn(
          { err, sessionId: this.#d.emitter.sessionId },
          'admission event failed',
        ),
      );
      const ticket = this.#d.startTurn(input, files, inputId, traceId);
      const admission = { ok: true, inputId, delivery: 'startNow', ...ticket, stored } as const;
      this.#remember(admission);
      return admission;
    }
    const item: PendingInput = {
      inputId,
      input,
      files,
      delivery,
      targetTurnId: active?.turnId ?? null,
      traceId,
      ...(options.command === undefined ? {} : { command: options.command }),
    };
    this.#queue.add(item);
    this.#actions.add(inputId, true);
    const settled = new Promise<InputSettlement>((resolve) => this.#settlers.set(inputId, resolve));
    const queueLength = this.#queue.size;
    const admission = {
      ok: true,
      inputId,
      delivery,
      targetTurnId: item.targetTurnId,
      queueLength,
      settled,
    } as const;
    this.#remember(admission);
    await this.#emitQueued(item, delivery, queueLength);
    return admission;
  }

  /** Flow 1: an input that starts a turn at once is admitted to the ledger first (R6). */
  async #admitStartNow(
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

  /**
   * The running turn's step boundary (R14.3 `guide`): every guided input becomes a user
   * message of this turn, promoted in the ledger (R7.3), then `turn_steer_drained`.
   * Returns the last injected message id, if any.
   */
  async drainGuided(turnId: string, traceId: string): Promise<string | undefined> {
    const batch = this.#actions.takeBatch(turnId);
    const limit = this.#d.policy().steeringMode === 'one_at_a_time' ? 1 : undefined;
    const items = [...batch, ...this.#queue.takeGuided(limit)];
    if (items.length === 0) return undefined;
    const messageIds: string[] = [];
    const drained: PendingInput[] = [];
    for (const item of items) {
      const messageId = this.#d.ids.newId('msg');
      // A batch's inputs were selected with its first (reserved already).
      if (!batch.includes(item)) await this.#actions.selected(item.inputId, item.traceId);
      await this.#actions.committing(item.inputId, item.traceId);
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
      this.#actions.running(item.inputId, turnId);
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
    for (const item of run) void this.#actions.selected(item.inputId, item.traceId).catch(log);
    const ticket = this.#d.startTurn(
      next.input,
      next.files,
      next.inputId,
      next.traceId,
      next.command,
    );
    this.#actions.holdBatch(ticket.turnId, rest);
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
    const batched = this.#actions.takeAllBatches();
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
