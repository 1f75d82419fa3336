import type { ModelSelection, SteerDiscardReason, SteerRejectReason } from '@agentwire/contracts';
import {
  firstInputTitle,
  shouldGenerateTitle,
  type TitleGenerationConfig,
} from '@agentwire/domain';
import type { ModelMessage, ModelProvider } from '@agentwire/model';
import type { ToolDefinition } from '../tools/tool-definition.ts';
import { decideAdmission, inputPreview, type RequestedDelivery } from './admission.ts';
import { AppendError } from './append-error.ts';
import { promoteUserInput } from './input-promotion.ts';
import { InputQueue, type PendingInput } from './input-queue.ts';
import { type PermissionAnswer, PermissionBroker } from './permission-broker.ts';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { runTitleJob, type TitleGenerator } from './title-job.ts';
import type { TranscriptWriter } from './transcript-writer.ts';
import { runTurn, type TurnOutcome } from './turn-runner.ts';

/** Called when a turn starts with the previous sealed turn, to purge its transient events (R3.4). */
export type EvictSealedTurn = (turnId: string) => Promise<void>;

/** What a session starts from: fresh, or recovered from Postgres (R10.4). */
export interface SessionStart {
  /** True once the session row exists (R13.2: born lazily at the first prompt). */
  readonly persisted: boolean;
  readonly title: string | null;
  readonly turnCount: number;
  readonly history: ModelMessage[];
  /** The last sealed turn whose transient events may still be retained. */
  readonly lastSealedTurnId?: string;
}

/** Dependencies of {@link RuntimeSession}. */
export interface RuntimeSessionOptions {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly model: ModelProvider;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  readonly cwd: string;
  readonly root: string;
  readonly permissionTimeoutMs: number;
  readonly maxSteps?: number;
  readonly start: SessionStart;
  readonly evictSealedTurn?: EvictSealedTurn;
  /** How long the first step waits for the user message's commit (flow 1). */
  readonly confirmTimeoutMs?: number;
  /** Inputs larger than this (UTF-8 bytes) are rejected `input_too_large` (R14.4). */
  readonly maxInputBytes?: number;
  /** R9.5: absent means off; `{}` turns title generation on. */
  readonly titleGeneration?: TitleGenerationConfig;
  /** The title sidecar (flow 4); without it no title is generated. */
  readonly titleGenerator?: TitleGenerator;
  /** `titleGeneration.modelSelection` (R9.6); the session's model when absent. */
  readonly titleModel?: ModelSelection;
}

/** Options of {@link RuntimeSession.submit}. */
export interface SubmitOptions {
  /** The input's command id (= ledger id, R14.1); generated when absent. */
  readonly inputId?: string | undefined;
  /** How to deliver it while a turn runs; `queue` by default. */
  readonly delivery?: RequestedDelivery | undefined;
  /** The turn the submitter saw running; another one means `expected_turn_mismatch`. */
  readonly expectedTurnId?: string | undefined;
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
  | { readonly ok: false; readonly inputId: string; readonly reason: SteerRejectReason };

/** What starts a turn. */
interface TurnStart {
  readonly turnId: string;
  readonly input: string;
  readonly inputId: string;
  readonly traceId: string;
  /** True when `turn_steer_queued` was emitted at admission (a queued input). */
  readonly admitted: boolean;
}

/** A running or finished turn as seen by the caller. */
export interface TurnTicket {
  readonly turnId: string;
  readonly done: Promise<TurnOutcome>;
}

/**
 * One resident session: its conversation, its one running turn at a time, its permission
 * requests and its title. Every event goes through the session's emitter (R5).
 */
export class RuntimeSession {
  readonly sessionId: string;
  readonly permissions = new PermissionBroker();
  readonly #o: RuntimeSessionOptions;
  readonly #history: ModelMessage[];
  #persisted: boolean;
  #title: string | null;
  #turnCount: number;
  #lastSealedTurnId: string | undefined;
  #sealedAt: number | undefined;
  #active:
    | {
        turnId: string;
        inputId: string;
        controller: AbortController;
        done: Promise<TurnOutcome>;
      }
    | undefined;
  #closed = false;
  #closing = false;
  readonly #queue = new InputQueue();
  readonly #settlers = new Map<string, (s: InputSettlement) => void>();
  #titleAttempted = false;
  #titleJobs = 0;

  constructor(options: RuntimeSessionOptions) {
    this.#o = options;
    this.sessionId = options.emitter.sessionId;
    this.#history = options.start.history;
    this.#persisted = options.start.persisted;
    this.#title = options.start.title;
    this.#turnCount = options.start.turnCount;
    this.#lastSealedTurnId = options.start.lastSealedTurnId;
    this.#sealedAt = options.start.lastSealedTurnId === undefined ? undefined : options.clock.now();
  }

  /**
   * The facts residency decisions re-read before reclaiming a session (R11.2, R16.6):
   * persisted, in-flight work (the running turn), unanswered interactions.
   */
  residencyFacts(): {
    persisted: boolean;
    inFlightWork: number;
    pendingInteraction: boolean;
    queuedCommands: number;
  } {
    return {
      persisted: this.#persisted,
      // R11.4: detached title requests count as in-flight work.
      inFlightWork: (this.#active === undefined ? 0 : 1) + this.#titleJobs,
      pendingInteraction: this.permissions.pendingRequestIds().length > 0,
      queuedCommands: this.#queue.size,
    };
  }

  /** Ids of the inputs waiting in the queue or for the next step boundary, in order. */
  get pendingInputIds(): string[] {
    return this.#queue.ids();
  }

  /** The id of the running turn, if any. */
  get activeTurnId(): string | undefined {
    return this.#active?.turnId;
  }

  get title(): string | null {
    return this.#title;
  }

  get turnCount(): number {
    return this.#turnCount;
  }

  /** The conversation as the model sees it. */
  get history(): readonly ModelMessage[] {
    return this.#history;
  }

  /**
   * Admits an input (R12.1, R14): rejected inputs get `turn_steer_rejected`; otherwise it
   * starts a turn now, or waits (`turn_steer_queued`) to start its own turn after the
   * running one (`queue`, in order) or to be inlined into the running turn at its next model
   * step boundary (`guide`). From this call on the input is in exactly one place (R14.3).
   */
  async submit(input: string, options: SubmitOptions = {}): Promise<Admission> {
    this.#assertUsable();
    const inputId = options.inputId ?? this.#o.ids.newId('in');
    if (this.#queue.has(inputId) || this.#active?.inputId === inputId) {
      throw new RuntimeError('duplicate_input', `input ${inputId} is already pending`, { inputId });
    }
    const bytes = new TextEncoder().encode(input).length;
    const active = this.#active;
    const decision = decideAdmission({
      text: input,
      bytes,
      maxBytes: this.#o.maxInputBytes ?? Number.POSITIVE_INFINITY,
      requestedDelivery: options.delivery,
      expectedTurnId: options.expectedTurnId,
      activeTurnId: active?.turnId,
      activeTurnStopping: active?.controller.signal.aborted ?? false,
      queuedCount: this.#queue.queuedCount,
    });
    const traceId = this.#o.ids.newTraceId();
    if (!decision.ok) {
      await this.#o.emitter.emit('turn_steer_rejected', null, traceId, {
        reason: decision.reason,
        commandId: inputId,
        inputPreview: inputPreview(input),
        inputSize: bytes,
      });
      return { ok: false, inputId, reason: decision.reason };
    }
    if (decision.delivery === 'startNow') {
      const ticket = this.#startTurn(input, inputId, traceId, false);
      return { ok: true, inputId, delivery: 'startNow', ...ticket };
    }
    const item: PendingInput = {
      inputId,
      input,
      delivery: decision.delivery,
      targetTurnId: active?.turnId ?? null,
      traceId,
    };
    this.#queue.add(item);
    const settled = new Promise<InputSettlement>((resolve) => this.#settlers.set(inputId, resolve));
    const queueLength = this.#queue.size;
    await this.#o.emitter.emit('turn_steer_queued', null, traceId, {
      pendingInputId: inputId,
      input,
      inputPreview: inputPreview(input),
      inputSize: bytes,
      delivery: decision.delivery,
      targetTurnId: item.targetTurnId,
      queueLength,
    });
    return {
      ok: true,
      inputId,
      delivery: decision.delivery,
      targetTurnId: item.targetTurnId,
      queueLength,
      settled,
    };
  }

  /** Starts a turn with `input` now; rejects while another turn runs or inputs wait. */
  prompt(input: string, options: { readonly inputId?: string } = {}): TurnTicket {
    this.#assertUsable();
    if (this.#active !== undefined || this.#queue.queuedCount > 0) {
      throw new RuntimeError('turn_in_progress', 'a turn is already running', {
        turnId: this.#active?.turnId,
      });
    }
    const inputId = options.inputId ?? this.#o.ids.newId('in');
    return this.#startTurn(input, inputId, this.#o.ids.newTraceId(), false);
  }

  /** A user removes a waiting input: `turn_steer_discarded` (`user_removed`, R14.2 cancelled). */
  async removeInput(inputId: string): Promise<void> {
    this.#assertUsable();
    const item = this.#queue.remove(inputId);
    if (item === undefined) {
      throw new RuntimeError('input_not_pending', `input ${inputId} is not waiting`, { inputId });
    }
    this.#settle(inputId, { kind: 'discarded', reason: 'user_removed' });
    await this.#o.emitter.emit('turn_steer_discarded', null, item.traceId, {
      pendingInputId: inputId,
      reason: 'user_removed',
    });
  }

  /**
   * Moves the listed waiting inputs to the front, in that order (the others keep theirs),
   * and emits `turn_steer_reordered` with the whole new order (R14.4). Returns it.
   */
  async reorderInputs(orderedInputIds: readonly string[]): Promise<readonly string[]> {
    this.#assertUsable();
    const result = this.#queue.reorder(orderedInputIds);
    if (!result.ok) {
      throw new RuntimeError('input_not_pending', `input ${result.inputId}: ${result.reason}`, {
        inputId: result.inputId,
        reason: result.reason,
      });
    }
    await this.#o.emitter.emit('turn_steer_reordered', null, this.#o.ids.newTraceId(), {
      orderedPendingInputIds: [...result.order],
    });
    return result.order;
  }

  #startTurn(input: string, inputId: string, traceId: string, admitted: boolean): TurnTicket {
    const turnId = this.#o.ids.newId('turn');
    const controller = new AbortController();
    let status: TurnOutcome['status'] = 'error';
    const done = this.#runTurn({ turnId, input, inputId, traceId, admitted }, controller.signal)
      .then((outcome) => {
        status = outcome.status;
        return outcome;
      })
      .finally(() => {
        this.#active = undefined;
        this.#afterTurn(status);
      });
    this.#active = { turnId, inputId, controller, done };
    return { turnId, done };
  }

  /**
   * After a turn: guided inputs it never reached fall back to the queue when it completed
   * (`turn_steer_delivery_changed`) or are discarded with it (`turn_cancelled`,
   * `turn_failed`); then the next queued input starts its own turn (R14.3).
   */
  #afterTurn(status: TurnOutcome['status']): void {
    if (this.#closed || this.#o.emitter.appender.broken !== undefined) return;
    const emit = this.#o.emitter;
    const log = (err: unknown) =>
      this.#o.logger.warn({ err, sessionId: this.sessionId }, 'queue bookkeeping event failed');
    if (status === 'complete' && !this.#closing) {
      for (const item of this.#queue.guided()) {
        item.delivery = 'queue';
        void emit
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
    if (this.#closing) return;
    const next = this.#queue.takeNextQueued();
    if (next === undefined) return;
    const ticket = this.#startTurn(next.input, next.inputId, next.traceId, true);
    this.#settle(next.inputId, { kind: 'started', ...ticket });
  }

  #discard(item: PendingInput, reason: SteerDiscardReason, log: (err: unknown) => void): void {
    this.#settle(item.inputId, { kind: 'discarded', reason });
    void this.#o.emitter
      .emit('turn_steer_discarded', null, item.traceId, { pendingInputId: item.inputId, reason })
      .catch(log);
  }

  #settle(inputId: string, settlement: InputSettlement): void {
    this.#settlers.get(inputId)?.(settlement);
    this.#settlers.delete(inputId);
  }

  /**
   * The running turn's step boundary (R14.3 `guide`): every guided input becomes a user
   * message of this turn, promoted in the ledger (R7.3), then `turn_steer_drained`.
   */
  async #drainGuided(turnId: string, traceId: string): Promise<string | undefined> {
    const items = this.#queue.takeGuided();
    if (items.length === 0) return undefined;
    const messageIds: string[] = [];
    for (const item of items) {
      const messageId = this.#o.ids.newId('msg');
      await promoteUserInput(this.#o, {
        turnId,
        traceId,
        messageId,
        input: item.input,
        inputId: item.inputId,
      });
      this.#history.push({ role: 'user', content: item.input });
      messageIds.push(messageId);
      this.#settle(item.inputId, { kind: 'drained', turnId, messageId });
    }
    await this.#o.emitter.emit('turn_steer_drained', turnId, traceId, {
      pendingInputIds: items.map((i) => i.inputId),
      injectedMessageIds: messageIds,
      inputs: items.map((i) => ({ pendingInputId: i.inputId, input: i.input })),
    });
    return messageIds.at(-1);
  }

  /** Interrupts the running turn; it ends as `turn_complete` with `cancelled`. */
  interrupt(): { readonly turnId: string; readonly done: Promise<TurnOutcome> } {
    const active = this.#active;
    if (active === undefined) throw new RuntimeError('no_active_turn', 'no turn is running');
    active.controller.abort();
    return { turnId: active.turnId, done: active.done };
  }

  /** Answers a pending permission request (R1.4). */
  answerPermission(requestId: string, answer: PermissionAnswer): void {
    const result = this.permissions.answer(requestId, answer);
    if (!result.ok) {
      throw new RuntimeError(
        'unknown_permission_request',
        `no pending permission request ${requestId}`,
        { requestId },
      );
    }
  }

  /** A user rename: source `custom`, never overwritten by automatic titles (R9.3). */
  async rename(title: string): Promise<void> {
    this.#assertUsable();
    const traceId = this.#o.ids.newTraceId();
    const previousTitle = this.#title;
    await this.#ensurePersisted(title, traceId);
    await this.#o.writer.updateTitle(
      { sessionId: this.sessionId, title, source: 'custom' },
      { sequence: this.#o.emitter.appender.latestSequence, traceId },
    );
    this.#title = title;
    await this.#o.emitter.emit('session_title_updated', null, traceId, {
      title,
      previousTitle,
      source: 'custom',
    });
  }

  /**
   * R3.5: a session that never starts another turn (a sub-agent's) still sheds its
   * transient events: called by the host's 60 s tick, it evicts the sealed turn once it
   * has been sealed longer than `maxAgeMs` (120 s). Returns whether it evicted.
   */
  async sweepTransient(now: number, maxAgeMs = 120_000): Promise<boolean> {
    if (
      this.#active !== undefined ||
      this.#sealedAt === undefined ||
      now - this.#sealedAt <= maxAgeMs
    )
      return false;
    return this.#evictSealed();
  }

  /** R3.4: evicts the last sealed turn's transient events (once). */
  async #evictSealed(): Promise<boolean> {
    const turnId = this.#lastSealedTurnId;
    if (turnId === undefined || this.#o.evictSealedTurn === undefined) return false;
    this.#lastSealedTurnId = undefined;
    this.#sealedAt = undefined;
    try {
      await this.#o.evictSealedTurn(turnId);
      return true;
    } catch (err) {
      this.#o.logger.warn({ err, sessionId: this.sessionId, turnId }, 'transient eviction failed');
      return false;
    }
  }

  /**
   * Interrupts any turn, waits for it, discards what still waits (`turn_cancelled`) and
   * ends the session (`session_ended`).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    const active = this.#active;
    if (active !== undefined) {
      active.controller.abort();
      await active.done.catch(() => undefined);
    }
    const log = (err: unknown) =>
      this.#o.logger.warn({ err, sessionId: this.sessionId }, 'discard on close failed');
    if (this.#o.emitter.appender.broken === undefined) {
      for (const item of this.#queue.takeAll()) this.#discard(item, 'turn_cancelled', log);
    }
    this.#closed = true;
    if (this.#o.emitter.appender.broken === undefined) {
      await this.#o.emitter.emit('session_ended', null, this.#o.ids.newTraceId(), {
        reason: 'closed',
      });
    }
    await this.#o.emitter.appender.idle();
  }

  /**
   * Stops without emitting anything (lease lost or process shutdown after drain). Waiting
   * inputs stay `admitted` in the ledger; the next owner discards them (R14.2).
   */
  abandon(): void {
    this.#closed = true;
    this.#active?.controller.abort();
    for (const item of this.#queue.takeAll()) this.#settle(item.inputId, { kind: 'abandoned' });
  }

  #assertUsable(): void {
    if (this.#closed)
      throw new RuntimeError('session_closed', `session ${this.sessionId} is closed`);
    const broken = this.#o.emitter.appender.broken;
    if (broken !== undefined) {
      throw new RuntimeError(
        'session_broken',
        `session ${this.sessionId} cannot append: ${broken.message}`,
        {
          code: broken.code,
        },
      );
    }
  }

  async #runTurn(spec: TurnStart, signal: AbortSignal): Promise<TurnOutcome> {
    const { turnId, input, inputId, traceId } = spec;
    const userMessageId = this.#o.ids.newId('msg');
    let started = false;
    try {
      if (!spec.admitted) await this.#admit(input, inputId, traceId);
      await this.#ensurePersisted(input, traceId, userMessageId);
      const write = await promoteUserInput(this.#o, {
        turnId,
        traceId,
        messageId: userMessageId,
        input,
        inputId,
      });
      if (write.committed) this.#maybeGenerateTitle(input, userMessageId);
      await this.#evictSealed();
      this.#history.push({ role: 'user', content: input });
      started = true;
      const outcome = await runTurn(
        {
          ...this.#o,
          permissions: this.permissions,
          maxSteps: this.#o.maxSteps ?? 8,
          atStepBoundary: (t, tr) => this.#drainGuided(t, tr),
        },
        { turnId, traceId, turnNumber: this.#turnCount, input, userMessageId, signal, inputId },
        this.#history,
      );
      this.#turnCount += 1;
      this.#lastSealedTurnId = turnId;
      this.#sealedAt = this.#o.clock.now();
      return outcome;
    } catch (err) {
      this.#o.logger.error({ err, sessionId: this.sessionId, turnId, started }, 'turn stopped');
      if (started && !(err instanceof AppendError))
        await this.#sealFailedTurn(turnId, traceId, inputId, err);
      throw err;
    }
  }

  /**
   * R9.4-R9.5: right after the first user message is confirmed persisted, and only when
   * `shouldGenerateTitle` allows, asks the sidecar for a title in a detached job that counts
   * as in-flight work from this synchronous slice until it settles (R11.4).
   */
  #maybeGenerateTitle(input: string, messageId: string): void {
    const generator = this.#o.titleGenerator;
    if (generator === undefined) return;
    const decision = shouldGenerateTitle({
      attemptedBefore: this.#titleAttempted,
      config: this.#o.titleGeneration,
      hasSessionStore: true,
      isChildSession: false,
      turnNumber: this.#turnCount,
      input,
    });
    if (!decision.ok) {
      this.#o.logger.debug({ sessionId: this.sessionId, reason: decision.reason }, 'no title');
      return;
    }
    this.#titleAttempted = true;
    this.#titleJobs += 1;
    const model = this.#o.titleModel ?? {
      providerId: this.#o.model.providerId,
      modelId: this.#o.model.modelId,
    };
    void runTitleJob(
      { ...this.#o, generator, stillOpen: () => !this.#closed },
      { input, model, currentTitle: this.#title, messageId },
    )
      .then((title) => {
        if (title !== undefined) this.#title = title;
      })
      .catch((err: unknown) =>
        this.#o.logger.warn({ err, sessionId: this.sessionId }, 'title job failed'),
      )
      .finally(() => {
        this.#titleJobs -= 1;
      });
  }

  /** Seals a turn whose loop threw (a bus or store failure), so it is not left open. */
  async #sealFailedTurn(
    turnId: string,
    traceId: string,
    inputId: string,
    err: unknown,
  ): Promise<void> {
    if (this.#o.emitter.appender.broken !== undefined) return;
    const message = err instanceof Error ? err.message : String(err);
    await this.#o.emitter
      .emit('turn_error', turnId, traceId, {
        error: {
          type: 'runtime_error',
          message,
          code: 'runtime_error',
          attribution: { source: 'runtime' },
        },
        turnPhase: 'runtime',
        inputId,
      })
      .then(() => {
        this.#turnCount += 1;
        this.#lastSealedTurnId = turnId;
        this.#sealedAt = this.#o.clock.now();
      })
      .catch(() => undefined);
  }

  /** Flow 1: an input that starts a turn at once is admitted to the ledger first (R6). */
  async #admit(input: string, inputId: string, traceId: string): Promise<void> {
    await this.#o.emitter.emit('turn_steer_queued', null, traceId, {
      pendingInputId: inputId,
      input,
      inputPreview: inputPreview(input),
      inputSize: new TextEncoder().encode(input).length,
      delivery: 'startNow',
      targetTurnId: null,
      queueLength: 0,
    });
  }

  /** R13.2 + R9.2: the row is born at the first prompt, titled from the first input. */
  async #ensurePersisted(firstInput: string, traceId: string, messageId?: string): Promise<void> {
    if (this.#persisted) return;
    const title = firstInputTitle(firstInput);
    await this.#o.writer.ensureSession(
      {
        sessionId: this.sessionId,
        parentSessionId: null,
        cwd: this.#o.cwd,
        root: this.#o.root,
        title,
        titleSource: 'first_input',
        firstInput,
        createdAt: this.#o.clock.now(),
      },
      { sequence: this.#o.emitter.appender.latestSequence, traceId },
    );
    this.#persisted = true;
    const previousTitle = this.#title;
    this.#title = title;
    await this.#o.emitter.emit('session_title_updated', null, traceId, {
      title,
      previousTitle,
      source: 'first_input',
      ...(messageId === undefined ? {} : { messageId }),
    });
  }
}
