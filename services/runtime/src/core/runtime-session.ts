import { firstInputTitle } from '@agentwire/domain';
import type { ModelMessage, ModelProvider } from '@agentwire/model';
import type { ToolDefinition } from '../tools/tool-definition.ts';
import { AppendError } from './append-error.ts';
import { type PermissionAnswer, PermissionBroker } from './permission-broker.ts';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TranscriptWriter, UserMessageWrite } from './transcript-writer.ts';
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
  #active: { turnId: string; controller: AbortController; done: Promise<TurnOutcome> } | undefined;
  #closed = false;

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
  residencyFacts(): { persisted: boolean; inFlightWork: number; pendingInteraction: boolean } {
    return {
      persisted: this.#persisted,
      inFlightWork: this.#active === undefined ? 0 : 1,
      pendingInteraction: this.permissions.pendingRequestIds().length > 0,
    };
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

  /** Starts a turn with `input`; rejects while another turn runs (R12.5: one at a time). */
  prompt(input: string, options: { readonly inputId?: string } = {}): TurnTicket {
    this.#assertUsable();
    if (this.#active !== undefined) {
      throw new RuntimeError('turn_in_progress', 'a turn is already running', {
        turnId: this.#active.turnId,
      });
    }
    const turnId = this.#o.ids.newId('turn');
    const controller = new AbortController();
    const done = this.#runTurn(turnId, input, controller.signal, options.inputId).finally(() => {
      this.#active = undefined;
    });
    this.#active = { turnId, controller, done };
    return { turnId, done };
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

  /** Interrupts any turn, waits for it and ends the session (`session_ended`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    const active = this.#active;
    if (active !== undefined) {
      active.controller.abort();
      await active.done.catch(() => undefined);
    }
    this.#closed = true;
    if (this.#o.emitter.appender.broken === undefined) {
      await this.#o.emitter.emit('session_ended', null, this.#o.ids.newTraceId(), {
        reason: 'closed',
      });
    }
    await this.#o.emitter.appender.idle();
  }

  /** Stops without emitting anything (lease lost or process shutdown after drain). */
  abandon(): void {
    this.#closed = true;
    this.#active?.controller.abort();
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

  async #runTurn(
    turnId: string,
    input: string,
    signal: AbortSignal,
    givenInputId: string | undefined,
  ): Promise<TurnOutcome> {
    const traceId = this.#o.ids.newTraceId();
    const userMessageId = this.#o.ids.newId('msg');
    const inputId = givenInputId ?? this.#o.ids.newId('in');
    let started = false;
    try {
      await this.#admitAndPromote(turnId, traceId, userMessageId, input, inputId);
      await this.#evictSealed();
      this.#history.push({ role: 'user', content: input });
      started = true;
      const outcome = await runTurn(
        { ...this.#o, permissions: this.permissions, maxSteps: this.#o.maxSteps ?? 8 },
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

  /**
   * Flow 1 and R7.3: the input is admitted to the ledger (`turn_steer_queued`, a durable
   * event), the session row is born if needed (R13.2, R9.2), the user message is written
   * with the ledger promotion in one transaction, and `session_input_promoted` is emitted
   * only once that commit is confirmed.
   */
  async #admitAndPromote(
    turnId: string,
    traceId: string,
    messageId: string,
    input: string,
    inputId: string,
  ): Promise<void> {
    const emitter = this.#o.emitter;
    await emitter.emit('turn_steer_queued', null, traceId, {
      pendingInputId: inputId,
      input,
      inputPreview: input.length > 120 ? `${input.slice(0, 117)}...` : input,
      inputSize: new TextEncoder().encode(input).length,
      delivery: 'startNow',
      targetTurnId: null,
      queueLength: 0,
    });
    await this.#ensurePersisted(input, traceId, messageId);
    const write = await this.#saveUserMessage(turnId, traceId, messageId, input, inputId);
    if (write.committed) {
      await emitter.emit('session_input_promoted', null, traceId, {
        pendingInputId: inputId,
        sourceCommandId: write.commandId,
        messageId,
      });
    }
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

  async #saveUserMessage(
    turnId: string,
    traceId: string,
    id: string,
    input: string,
    inputId: string,
  ): Promise<UserMessageWrite> {
    const now = this.#o.clock.now();
    return this.#o.writer.saveUserMessage(
      {
        id,
        sessionId: this.sessionId,
        role: 'user',
        time: { created: now },
        agent: 'build',
        semantics: {
          origin: 'real_user',
          kind: 'user_prompt',
          uiVisibility: 'visible',
          providerVisibility: 'visible',
          transcriptVisibility: 'visible',
        },
        anchor: {
          turnId,
          origin: 'realUser',
          sourceCommandId: inputId,
        },
      },
      [
        {
          id: this.#o.ids.newId('prt'),
          sessionId: this.sessionId,
          messageId: id,
          type: 'text',
          text: input,
        },
      ],
      {
        sequence: this.#o.emitter.appender.latestSequence,
        traceId,
        promoteInputId: inputId,
      },
    );
  }
}
