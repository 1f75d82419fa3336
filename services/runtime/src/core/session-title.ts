import type { ModelSelection } from '@agentwire/contracts';
import {
  firstInputTitle,
  shouldGenerateTitle,
  type TitleGenerationConfig,
} from '@agentwire/domain';
import type { IdSource, RuntimeClock, RuntimeLogger } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { runTitleJob, type TitleGenerator } from './title-job.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** Dependencies of {@link SessionTitle}. */
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

/**
 * A session's row and title: the row is born at the first prompt, titled from the first
 * input (R13.2, R9.2); a rename is `custom` (R9.3); after the first user message a detached
 * job may ask the title sidecar (R9.4-R9.7), counted as in-flight work until it settles
 * (R11.4).
 */
export class SessionTitle {
  readonly #d: SessionTitleDeps;
  #persisted: boolean;
  #title: string | null;
  #attempted = false;
  #jobs = 0;

  constructor(deps: SessionTitleDeps, start: { persisted: boolean; title: string | null }) {
    this.#d = deps;
    this.#persisted = start.persisted;
    this.#title = start.title;
  }

  /** True once the session row exists. */
  get persisted(): boolean {
    return this.#persisted;
  }

  /** The title as stored now. */
  get title(): string | null {
    return this.#title;
  }

  /** Title jobs still running (in-flight work, R11.4). */
  get jobs(): number {
    return this.#jobs;
  }

  /** R13.2 + R9.2: the row is born at the first prompt, titled from the first input. */
  async ensurePersisted(firstInput: string, traceId: string, messageId?: string): Promise<void> {
    if (this.#persisted) return;
    const title = firstInputTitle(firstInput);
    await this.#d.writer.ensureSession(
      {
        sessionId: this.#d.emitter.sessionId,
        parentSessionId: null,
        cwd: this.#d.cwd,
        root: this.#d.root,
        title,
        titleSource: 'first_input',
        firstInput,
        createdAt: this.#d.clock.now(),
      },
      { sequence: this.#d.emitter.appender.latestSequence, traceId },
    );
    this.#persisted = true;
    const previousTitle = this.#title;
    this.#title = title;
    await this.#d.emitter.emit('session_title_updated', null, traceId, {
      title,
      previousTitle,
      source: 'first_input',
      ...(messageId === undefined ? {} : { messageId }),
    });
  }

  /** A user rename: source `custom`, never overwritten by automatic titles (R9.3). */
  async rename(title: string): Promise<void> {
    const traceId = this.#d.ids.newTraceId();
    const previousTitle = this.#title;
    await this.ensurePersisted(title, traceId);
    await this.#d.writer.updateTitle(
      { sessionId: this.#d.emitter.sessionId, title, source: 'custom' },
      { sequence: this.#d.emitter.appender.latestSequence, traceId },
    );
    this.#title = title;
    await this.#d.emitter.emit('session_title_updated', null, traceId, {
      title,
      previousTitle,
      source: 'custom',
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
    const decision = shouldGenerateTitle({
      attemptedBefore: this.#attempted,
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
    void runTitleJob(
      { ...this.#d, generator },
      { input, model: this.#d.titleModel, currentTitle: this.#title, messageId },
    )
      .then((title) => {
        if (title !== undefined) this.#title = title;
      })
      .catch((err: unknown) => this.#d.logger.warn({ err, sessionId }, 'title job failed'))
      .finally(() => {
        this.#jobs -= 1;
      });
  }
}
