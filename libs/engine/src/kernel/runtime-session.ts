import type { ActionState } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';
import { ActionDispatch } from './action-dispatch.ts';
import type { SessionStatus, SyntheticTurn } from './feature.ts';
import { IdleScheduler } from './idle-scheduler.ts';
import { InputDispatcher } from './input-dispatcher.ts';
import { InputQueue } from './input-queue.ts';
import { LedgerBook } from './ledger-book.ts';
import { chainedWriter, MessageChain } from './message-chain.ts';
import { TurnScanner } from './open-turn.ts';
import { type PermissionAnswer, PermissionBroker } from './permission-broker.ts';
import { RequestChain } from './request-chain.ts';
import { RuntimeError } from './runtime-error.ts';
import { SessionFeatures } from './session-features.ts';
import type { RuntimeSessionOptions } from './session-options.ts';
import { SessionTitle } from './session-title.ts';
import { runSessionTurn, type SessionTurnDeps } from './session-turn.ts';
import type { Admission, SubmitOptions, TurnTicket } from './submission.ts';
import { TransientEviction } from './transient-eviction.ts';
import { TurnSlot } from './turn-slot.ts';

/** How much of a submission `turn_input_received` carries (characters). */
const RECEIVED_PREVIEW_CHARS = 2_000;

/**
 * One resident session: its conversation and its one running turn at a time. Inputs are
 * admitted and dispatched by its {@link InputDispatcher} (R12, R14), the row and title kept by
 * its {@link SessionTitle} (R9, R13.2), permission requests by its {@link PermissionBroker}
 * (R1.4), transient events of sealed turns evicted by its {@link TransientEviction} (R3.4,
 * R3.5). Every event goes through the session's emitter (R5).
 */
export class RuntimeSession {
  readonly sessionId: string;
  readonly permissions = new PermissionBroker();
  readonly #ledger = new LedgerBook();
  readonly #o: RuntimeSessionOptions;
  readonly #history: ModelMessage[];
  readonly #inputs: InputDispatcher;
  readonly #actions: ActionDispatch;
  readonly #titles: SessionTitle;
  readonly #eviction: TransientEviction;
  /** The session's own events, folded: what a failing turn left open (issue 20). */
  readonly #turns = new TurnScanner();
  /** What each main-turn `model_request` extends (docs/decisions/0161). */
  readonly #requests: RequestChain;
  readonly #features: SessionFeatures;
  #turnCount: number;
  /** The one running turn and the epoch (R12.5). */
  readonly #turn: TurnSlot;
  #closed = false;
  #closing = false;
  /** What starts by itself once nothing runs: queued inputs, then features' turns. */
  readonly #scheduler: IdleScheduler;
  /** The parts a turn's life uses (`runSessionTurn`). */
  readonly #turnDeps: SessionTurnDeps;

  constructor(given: RuntimeSessionOptions) {
    // Every message written follows the session's leaf (docs/decisions/0239).
    const chain = new MessageChain(given.start.leaf);
    const options: RuntimeSessionOptions = { ...given, writer: chainedWriter(given.writer, chain) };
    this.#o = options;
    this.sessionId = options.emitter.sessionId;
    this.#history = options.start.history;
    this.#turnCount = options.start.turnCount;
    this.#turn = new TurnSlot({
      ...options,
      run: (spec, signal, previous) => runSessionTurn(this.#turnDeps, spec, signal, previous),
      settled: (turnId, status, idle) => {
        this.#actions.turnEnded(turnId, status);
        if (this.#closed || options.emitter.appender.broken !== undefined) return;
        this.#inputs.afterTurn(status, this.#closing, idle);
        if (idle) this.#scheduler.wake();
      },
    });
    const { lastRequest } = options.start;
    this.#requests = new RequestChain(
      options.hasher,
      lastRequest === undefined ? undefined : { history: this.#history, last: lastRequest },
    );
    this.#features = new SessionFeatures({
      ...options,
      features: options.features ?? [],
      recovered: options.start.featureEvents ?? [],
      status: () => this.#status(),
      rename: (title) => this.rename(title),
      history: this.#history,
      requests: this.#requests,
      chain,
      // A command action's turn is the boundary its command runs at (0238).
      turnRunning: () => this.#turn.active !== undefined && !this.#turn.active.command,
      idle: () => this.#scheduler.idle(),
      wake: () => this.#scheduler.wake(),
      summaryTitle: (text) => this.#titles.summarise(text),
    });
    const queue = new InputQueue();
    this.#actions = new ActionDispatch({ ...options, putBack: (items) => queue.putBack(items) });
    this.#inputs = new InputDispatcher({
      ...options,
      queue,
      actions: this.#actions,
      ledger: this.#ledger,
      history: this.#history,
      earlierInputs: options.start.earlierInputs,
      policy: () => this.#features.set.queuePolicy(),
      sessionBusy: () => this.#features.set.busy(),
      activeTurn: () => {
        const active = this.#turn.active;
        if (active === undefined || active.ending) return undefined;
        const { turnId, inputId, controller } = active;
        return { turnId, inputId, stopping: controller.signal.aborted };
      },
      startTurn: (input, files, inputId, traceId, command) =>
        this.#turn.start({
          turnId: options.ids.newId('turn'),
          input,
          files,
          inputId,
          traceId,
          ...(command === undefined ? {} : { command }),
        }),
    });
    this.#scheduler = new IdleScheduler({
      sessionId: this.sessionId,
      logger: options.logger,
      free: () =>
        !this.#closed &&
        !this.#closing &&
        this.#turn.active === undefined &&
        !this.#features.set.busy() &&
        options.emitter.appender.broken === undefined,
      waiting: () => this.#inputs.size,
      startNext: () => this.#inputs.startNext(),
      whenIdle: () => this.#features.set.whenIdle(),
      startFeatureTurn: (turn) => this.#startFeatureTurn(turn),
    });
    this.#titles = new SessionTitle(
      {
        ...options,
        titleModel: options.titleModel ?? {
          providerId: options.model.providerId,
          modelId: options.model.modelId,
        },
        stillOpen: () => !this.#closed,
      },
      options.start,
    );
    this.#eviction = new TransientEviction(
      { sessionId: this.sessionId, logger: options.logger, evict: options.evictSealedTurn },
      options.start.lastSealedTurnId,
      options.clock.now(),
    );
    options.emitter.appender.addSink({
      name: 'open-turn',
      onSessionEvent: (event) => this.#turns.add(event),
    });
    options.emitter.appender.observe((event) => this.#features.set.eventAppended(event));
    // A turn is over for admission once its end is appended (issue 9: a prompt right after
    // `turn_complete` starts its own turn at once instead of queueing behind a finished one).
    this.#turnDeps = {
      o: options,
      ledger: this.#ledger,
      inputs: this.#inputs,
      actions: this.#actions,
      titles: this.#titles,
      eviction: this.#eviction,
      features: this.#features,
      history: this.#history,
      requests: this.#requests,
      permissions: this.permissions,
      turns: this.#turns,
      turnCount: () => this.#turnCount,
      sealed: (turnId) => this.#sealed(turnId),
      epoch: () => this.#turn.epoch,
      prepared: (turnId) => this.#turn.prepared(turnId),
    };
    options.emitter.appender.observe((event) => {
      this.#turn.observe(event);
      // Its actions end with the event that ends it, as a ticket does (R12.3, 0235).
      if (event.type === 'turn_complete' && event.turnId !== null) {
        const cancelled = event.payload.resultType === 'cancelled';
        this.#actions.turnEnded(event.turnId, cancelled ? 'cancelled' : 'complete');
      } else if (event.type === 'turn_error' && event.turnId !== null) {
        this.#actions.turnEnded(event.turnId, 'error');
      }
    });
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
      persisted: this.#titles.persisted,
      // R11.4: detached title requests count as in-flight work.
      inFlightWork:
        (this.#turn.active === undefined ? 0 : 1) +
        (this.#scheduler.checking ? 1 : 0) +
        this.#titles.jobs,
      pendingInteraction: this.permissions.pendingRequestIds().length > 0,
      queuedCommands: this.#inputs.size,
    };
  }

  /** Ids of the inputs waiting in the queue or for the next step boundary, in order. */
  get pendingInputIds(): string[] {
    return this.#inputs.ids();
  }

  /** Where an accepted input is in its lifecycle (R12.3), while the session remembers it. */
  actionState(inputId: string): ActionState | undefined {
    return this.#actions.state(inputId);
  }

  /** The id of the running turn, if any. */
  get activeTurnId(): string | undefined {
    return this.#turn.active?.turnId;
  }

  /** The title as the session's stream last stated it (R9; docs/decisions/0130). */
  get title(): string | null {
    return this.#titles.title;
  }

  /** Turns started and sealed so far. */
  get turnCount(): number {
    return this.#turnCount;
  }

  /** The conversation as the model sees it. */
  get history(): readonly ModelMessage[] {
    return this.#history;
  }

  /**
   * Takes a submission (R12.1, R14). It is normalised first: a slash command runs at once
   * and its result is the answer; a prompt template becomes its prompt; `@file` references
   * become file parts. A prompt is then admitted: rejected inputs get
   * `turn_steer_rejected`; otherwise it starts a turn now, or waits (`turn_steer_queued`)
   * to start its own turn after the running one (`queue`, in order) or to be inlined into
   * the running turn at its next model step boundary (`guide`). From then on the input is
   * in exactly one place (R14.3).
   */
  async submit(input: string, options: SubmitOptions = {}): Promise<Admission> {
    this.#assertUsable();
    const inputId = options.inputId ?? this.#o.ids.newId('in');
    // Its arrival, before anything is decided about it (issue 11 item 4, 0233): numbered
    // first, published in order, and not waited for (the broker's ack is not on the way in).
    void this.#o.emitter
      .emit('turn_input_received', null, this.#o.ids.newTraceId(), {
        input:
          input.length > RECEIVED_PREVIEW_CHARS ? input.slice(0, RECEIVED_PREVIEW_CHARS) : input,
        inputId,
        inputSize: new TextEncoder().encode(input).length,
      })
      .catch((err: unknown) =>
        this.#o.logger.warn({ err, sessionId: this.sessionId }, 'turn_input_received failed'),
      );
    const normalised = await this.#features.normalise(input);
    if (normalised.kind === 'command') {
      const { command, result } = normalised;
      return { ok: true, inputId, delivery: 'command', command, result };
    }
    if (normalised.kind === 'action') {
      // A session-level command while the session is busy: queued as an action, run at the
      // turn boundary in order (R12.1, 0238).
      const { command: name, args } = normalised;
      const admission = await this.#inputs.submit(input.trim(), {
        ...options,
        inputId,
        files: [],
        command: { name, args },
      });
      this.#scheduler.wake();
      return admission;
    }
    const { text, files } = normalised.input;
    return this.#inputs.submit(text, { ...options, inputId, files });
  }

  /**
   * Runs a direct command by name, as an operation does (`set_mode` is `/mode <mode>`).
   * Returns its result; an unknown name or a template is `unknown_command`.
   */
  async runCommand(name: string, args: string): Promise<Readonly<Record<string, unknown>>> {
    this.#assertUsable();
    return this.#features.runCommand(name, args);
  }

  /**
   * Runs an operation a feature answers (docs/decisions/0220), with a body the host already
   * validated; `unknown_op` when no feature answers it.
   */
  runOperation(name: string, body: unknown): Promise<Readonly<Record<string, unknown>>> {
    return this.#features.runOperation(name, body);
  }

  #status(): SessionStatus {
    return {
      sessionId: this.sessionId,
      title: this.#titles.title,
      titleSource: this.#titles.source,
      persisted: this.#titles.persisted,
      turnCount: this.#turnCount,
      activeTurnId: this.#turn.active?.turnId ?? null,
      pendingInputIds: this.#inputs.ids(),
    };
  }

  /** A user removes a waiting input: `turn_steer_discarded` (`user_removed`, R14.2 cancelled). */
  async removeInput(inputId: string): Promise<void> {
    this.#assertUsable();
    await this.#inputs.editor.remove(inputId);
  }

  /**
   * Moves the listed waiting inputs to the front, in that order (the others keep theirs),
   * and emits `turn_steer_reordered` with the whole new order (R14.4). Returns it.
   */
  async reorderInputs(orderedInputIds: readonly string[]): Promise<readonly string[]> {
    this.#assertUsable();
    return this.#inputs.editor.reorder(orderedInputIds);
  }

  /**
   * Edits a waiting input's text in place (docs/decisions/0222). The text is normalised as a
   * prompt (templates and `@file` references expand); a slash command run directly cannot
   * take a waiting input's place (`invalid_command`).
   */
  async editInput(inputId: string, text: string): Promise<void> {
    this.#assertUsable();
    const normalised = await this.#features.normalise(text, { promptOnly: true });
    if (normalised.kind !== 'prompt') throw new Error('a command ran in an edit');
    await this.#inputs.editor.edit(inputId, normalised.input.text, normalised.input.files);
  }

  /** Moves a waiting input to `position` (0 = next): `turn_steer_reordered`. Returns the order. */
  async moveInput(inputId: string, position: number): Promise<readonly string[]> {
    this.#assertUsable();
    return this.#inputs.editor.move(inputId, position);
  }

  /** Clears the queue: `turn_steer_discarded` (`user_cleared`) for each. Returns their ids. */
  async clearInputs(): Promise<readonly string[]> {
    this.#assertUsable();
    return this.#inputs.editor.clear();
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
    return this.#turn.interrupt(options);
  }

  /**
   * The broker has been away for `stalledMs`, past the configured bound (issue 9): the
   * running turn stops and, once its events can go out again, ends as `turn_error`
   * (`broker_unavailable`), with what it left open settled. Nothing is dropped: the events
   * already numbered are still published first, in order.
   */
  brokerUnavailable(stalledMs: number): void {
    this.#turn.brokerUnavailable(stalledMs);
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
    await this.#titles.rename(title);
  }

  /**
   * R3.5: a session that never starts another turn (a sub-agent's) still sheds its
   * transient events: called by the host's 60 s tick, it evicts the sealed turn once it
   * has been sealed longer than `maxAgeMs` (120 s). Returns whether it evicted.
   */
  async sweepTransient(now: number, maxAgeMs?: number): Promise<boolean> {
    if (this.#turn.active !== undefined) return false;
    return this.#eviction.sweep(now, maxAgeMs);
  }

  /**
   * Interrupts any turn, waits for it, discards what still waits (`turn_cancelled`) and
   * ends the session (`session_ended`).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    const active = this.#turn.active;
    if (active !== undefined) {
      active.controller.abort();
      await active.done.catch(() => undefined);
    }
    if (this.#o.emitter.appender.broken === undefined) this.#inputs.discardAll();
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
    this.#turn.active?.controller.abort();
    this.#inputs.abandonAll();
  }

  #assertUsable(): void {
    if (this.#closed)
      throw new RuntimeError('session_closed', `session ${this.sessionId} is closed`);
    const broken = this.#o.emitter.appender.broken;
    if (broken !== undefined) {
      throw new RuntimeError(
        'session_broken',
        `session ${this.sessionId} cannot append: ${broken.message}`,
        { code: broken.code },
      );
    }
  }

  #startFeatureTurn(turn: SyntheticTurn): void {
    // Nobody awaits a feature's turn: how it ended is on the wire and in the log.
    this.#turn.start({
      turnId: this.#o.ids.newId('turn'),
      input: turn.notice,
      files: [],
      inputId: undefined,
      traceId: this.#o.ids.newTraceId(),
      synthetic: turn,
    });
  }

  #sealed(turnId: string): void {
    this.#turnCount += 1;
    this.#eviction.sealed(turnId, this.#o.clock.now());
  }
}
