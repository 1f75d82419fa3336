import type { ModelSelection, TitleSource } from '@agentwire/contracts';
import {
  firstInputTitle,
  shouldGenerateTitle,
  type TitleGenerationConfig,
} from '@agentwire/domain';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { runTitleJob, type TitleGenerator } from './title-job.ts';
import type { ConfirmedWrite, SessionRecord, TranscriptWriter } from './transcript-writer.ts';

export interface SessionTitleDeps {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  readonly cwd: string;
  readonly root: string;
  /** R9.5: absent means off; `{}` turns title generation on. */
  readonly titleGeneration?: TitleGenerationConfig | undefined;
  /** The title sidecar (flow 4); without it no title is generated. */
  readonly titleGenerator?: TitleGenerator | undefined;
  /** The model asked for titles (R9.6). */
  readonly titleModel: ModelSelection;
  /** False once the session closed: late title replies are dropped. */
  readonly stillOpen: () => boolean;
}

/** Where a session's title starts: fresh (no row), or as stored (cold recovery). */
export interface TitleStart {
  readonly persisted: boolean;
  readonly title: string | null;
  readonly titleSource?: TitleSource | null | undefined;
}

/**
 * A session's row and title, with one order of effect (docs/decisions/0130). Every change
 * runs in turn, and each `session_title_updated` follows the commit it reports, so the
 * stream says what Postgres holds:
 * - the row is born at the first prompt, titled from the first input (R13.2, R9.2), or by
 *   a rename before it, as `custom` (R9.3); either waits for its commit, so nothing of the
 *   session is published before its row is visible;
 * - a rename (`custom`, R9.3) is answered once committed; from the moment it is asked, any
 *   generated title the sidecar already wrote is superseded: no `generated` event follows;
 * - after the first user message a detached job may ask the title sidecar (R9.4-R9.7),
 *   counted as in-flight work until it settles (R11.4); never over a custom title (R9.5).
 * An event is emitted only when title or source differ from the last one emitted (R16.5).
 */
export class SessionTitle {
  readonly #d: SessionTitleDeps;
  #persisted: boolean;
  /** False while the row's commit is unconfirmed: no title request may meet a missing row. */
  #rowConfirmed: boolean;
  #title: string | null;
  #source: TitleSource | null;
  #renamed = false;
  #attempted = false;
  #jobs = 0;
  #serial: Promise<unknown> = Promise.resolve();

  constructor(deps: SessionTitleDeps, start: TitleStart) {
    this.#d = deps;
    this.#persisted = start.persisted;
    this.#rowConfirmed = start.persisted;
    this.#title = start.title;
    this.#source = start.titleSource ?? null;
    this.#renamed = this.#source === 'custom';
  }

  /** True once the session row exists. */
  get persisted(): boolean {
    return this.#persisted;
  }

  /** The title as the session's stream last stated it. */
  get title(): string | null {
    return this.#title;
  }

  /** The title's source as the stream last stated it (R9.1). */
  get source(): TitleSource | null {
    return this.#source;
  }

  /** Title jobs still running (in-flight work, R11.4). */
  get jobs(): number {
    return this.#jobs;
  }

  /** R13.2 + R9.2: the row is born at the first prompt, titled from the first input. */
  ensurePersisted(firstInput: string, traceId: string, messageId?: string): Promise<void> {
    return this.#inTurn(async () => {
      if (this.#persisted) return;
      const title = firstInputTitle(firstInput);
      const write = await this.#birth({ title, titleSource: 'first_input', firstInput }, traceId);
      if (!write.confirmed) {
        // The command stays queued and will apply; only title generation waits for proof.
        this.#d.logger.warn(
          { sessionId: this.#d.emitter.sessionId },
          'session row not confirmed; no title will be generated',
        );
      } else if (!bornHere(write)) {
        this.#d.logger.warn(
          { sessionId: this.#d.emitter.sessionId, outcome: write.outcome },
          'session row existed already; its title is left as stored',
        );
        return;
      }
      await this.#emitTitle(title, 'first_input', traceId, messageId);
    });
  }

  /**
   * A user rename: source `custom`, never overwritten by automatic titles (R9.3). Resolves
   * once committed and announced; before the first prompt the row is born with it.
   * Throws `write_not_confirmed` when the worker did not confirm it in time.
   */
  rename(title: string): Promise<void> {
    this.#renamed = true;
    return this.#inTurn(async () => {
      const traceId = this.#d.ids.newTraceId();
      if (!this.#persisted) {
        const born = await this.#birth({ title, titleSource: 'custom', firstInput: null }, traceId);
        this.#confirmedOrThrow(born);
        if (bornHere(born)) return this.#emitTitle(title, 'custom', traceId);
      }
      const write = await this.#d.writer.updateTitle(
        { sessionId: this.#d.emitter.sessionId, title, source: 'custom' },
        { sequence: this.#d.emitter.appender.latestSequence, traceId },
      );
      this.#confirmedOrThrow(write);
      if (write.outcome === 'condition_failed') {
        throw new RuntimeError('write_not_confirmed', 'the session row is not committed yet', {
          sessionId: this.#d.emitter.sessionId,
        });
      }
      await this.#emitTitle(title, 'custom', traceId);
    });
  }

  /**
   * R9.4-R9.5: right after the first user message is confirmed persisted, and only when
   * `shouldGenerateTitle` allows, asks the sidecar for a title in a detached job that counts
   * as in-flight work from this synchronous slice until it settles (R11.4).
   */
  maybeGenerate(input: string, messageId: string, turnNumber: number): void {
    const generator = this.#d.titleGenerator;
    if (generator === undefined) return;
    const sessionId = this.#d.emitter.sessionId;
    if (!this.#rowConfirmed) {
      this.#d.logger.warn({ sessionId }, 'no title: the session row is not confirmed');
      return;
    }
    const decision = shouldGenerateTitle({
      attemptedBefore: this.#attempted,
      customTitle: this.#renamed,
      config: this.#d.titleGeneration,
      hasSessionStore: true,
      isChildSession: false,
      turnNumber,
      input,
    });
    if (!decision.ok) {
      this.#d.logger.debug({ sessionId, reason: decision.reason }, 'no title');
      return;
    }
    this.#attempted = true;
    this.#jobs += 1;
    void runTitleJob({ ...this.#d, generator }, { input, model: this.#d.titleModel })
      .then(async (outcome) => {
        if (outcome.kind === 'applied') {
          await this.#generated(outcome.title, outcome.traceId, messageId);
        }
        this.#d.logger.info({ sessionId, outcome: outcome.kind }, 'title job settled');
      })
      .catch((err: unknown) => this.#d.logger.warn({ err, sessionId }, 'title job failed'))
      .finally(() => {
        this.#jobs -= 1;
      });
  }

  /**
   * A goal's summary title (R9.10, docs/decisions/0231): the sidecar names `input` without
   * writing anything back (`querySource: "goal_summary_title"`), counted as in-flight work
   * (R11.4). Undefined when title generation is off (R9.5's configuration), there is no
   * sidecar, or it failed or gave nothing: the caller falls back to the truncated text.
   */
  async summarise(input: string): Promise<string | undefined> {
    const generator = this.#d.titleGenerator;
    const config = this.#d.titleGeneration;
    if (generator === undefined || config === undefined || config.enabled === false) {
      return undefined;
    }
    this.#jobs += 1;
    try {
      const outcome = await runTitleJob(
        { ...this.#d, generator },
        { input, model: this.#d.titleModel, querySource: 'goal_summary_title' },
      );
      return outcome.kind === 'titled' ? outcome.title : undefined;
    } finally {
      this.#jobs -= 1;
    }
  }

  /** A title the sidecar wrote back: announced unless a rename was asked meanwhile. */
  #generated(title: string, traceId: string, messageId: string): Promise<void> {
    return this.#inTurn(async () => {
      if (this.#renamed) {
        // The rename's commit comes after this write-back, or the write-back never applied.
        this.#d.logger.info({ sessionId: this.#d.emitter.sessionId }, 'generated title superseded');
        return;
      }
      if (!this.#d.stillOpen()) return;
      await this.#emitTitle(title, 'generated', traceId, messageId);
    });
  }

  async #birth(
    facts: Pick<SessionRecord, 'title' | 'titleSource' | 'firstInput'>,
    traceId: string,
  ): Promise<ConfirmedWrite> {
    const written = this.#d.writer.ensureSession(
      {
        sessionId: this.#d.emitter.sessionId,
        parentSessionId: null,
        cwd: this.#d.cwd,
        root: this.#d.root,
        ...facts,
        createdAt: this.#d.clock.now(),
      },
      { sequence: this.#d.emitter.appender.latestSequence, traceId },
    );
    // Queued on the work queue even when unconfirmed: the row will apply, never born twice.
    const write = await written;
    this.#persisted = true;
    this.#rowConfirmed = write.confirmed;
    return write;
  }

  #confirmedOrThrow(write: ConfirmedWrite): asserts write is ConfirmedWrite & { confirmed: true } {
    if (write.confirmed) return;
    throw new RuntimeError(
      'write_not_confirmed',
      'the persistence worker did not confirm the rename in time; it stays queued and may still apply',
      { sessionId: this.#d.emitter.sessionId },
    );
  }

  /** Emits `session_title_updated` when title or source differ from the last one (R16.5). */
  async #emitTitle(
    title: string,
    source: TitleSource,
    traceId: string,
    messageId?: string,
  ): Promise<void> {
    if (this.#title === title && this.#source === source) return;
    const previousTitle = this.#title;
    this.#title = title;
    this.#source = source;
    await this.#d.emitter.emit('session_title_updated', null, traceId, {
      title,
      previousTitle,
      source,
      ...(messageId === undefined ? {} : { messageId }),
    });
  }

  /** Runs `step` after every title change asked before it (one order of effect). */
  #inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(step);
    this.#serial = run.catch(() => undefined);
    return run;
  }
}

/**
 * Whether a confirmed birth created the row: `applied`, or a `duplicate` answering a
 * republished command (most likely the first publish's own row, its confirmation missed).
 */
function bornHere(write: ConfirmedWrite & { confirmed: true }): boolean {
  return write.outcome === 'applied' || (write.outcome === 'duplicate' && write.republished);
}
