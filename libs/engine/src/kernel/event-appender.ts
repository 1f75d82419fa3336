import { isTransientEventType, type SessionEvent } from '@agentwire/contracts';
import { AppendError } from './append-error.ts';
import type { EventNumbering } from './event-numbering.ts';
import type { EventPublisher, RuntimeLogger, SessionSink, UsageRecorder } from './ports.ts';

/** Dependencies of {@link EventAppender}. */
export interface EventAppenderOptions {
  readonly sessionId: string;
  readonly numbering: EventNumbering;
  readonly publisher: EventPublisher;
  readonly usage: UsageRecorder;
  readonly logger: RuntimeLogger;
  /** The session's last non-transient number before this process (0 for a new session). */
  readonly lastDurableSequence: number;
  /** Told once, when step 1 fails and the appender breaks (the host drops the session). */
  readonly onBroken?: (error: AppendError) => void;
}

const LIFECYCLE = new Set(['turn_started', 'turn_complete', 'turn_error', 'session_title_updated']);
const SUMMARY_EVERY = 100;

/**
 * `appendEvent` of one session (R5): number and publish, usage, then each sink in turn, all
 * awaited and serialised per session so that persistence order equals event order (R5.6).
 * Only the numbered event leaves (R5.1). R5's durable step is the persistence worker, which
 * consumes what was published; the pipeline has none of its own (docs/decisions/0154). A
 * failing usage step is a warning (R5.2), a failing sink is logged and the others still get the
 * event (R5.3); failures name their phase (R5.4). A step-1 failure breaks the appender:
 * every later append rejects, because a number that was not published must not be skipped
 * silently (the session must be reloaded, or it lost its lease). Except a refusal: an event
 * the broker refused for good was never stored, so its number is withdrawn, the append
 * rejects `refused` and the session goes on (docs/decisions/0160). Appends are serialised,
 * so the refused event is always the last numbered one.
 */
export class EventAppender {
  readonly #o: EventAppenderOptions;
  readonly #sinks: SessionSink[] = [];
  readonly #observers: ((event: SessionEvent) => void)[] = [];
  #tail: Promise<unknown> = Promise.resolve();
  #lastDurable: number;
  #broken: AppendError | undefined;
  readonly #streamCounts = new Map<string, number>();

  constructor(options: EventAppenderOptions) {
    this.#o = options;
    this.#lastDurable = options.lastDurableSequence;
  }

  /** Subscribers attached now (R1.2). */
  get sinkCount(): number {
    return this.#sinks.length;
  }

  /** Attaches a subscriber (R1.2); returns a detach function. */
  addSink(sink: SessionSink): () => void {
    this.#sinks.push(sink);
    return () => {
      const i = this.#sinks.indexOf(sink);
      if (i >= 0) this.#sinks.splice(i, 1);
    };
  }

  /**
   * Calls `observer` synchronously as each event is numbered, before it is published: the
   * session's own state may move at that instant (a turn is over for admission once its
   * `turn_complete` is appended, not once the broker acknowledged it).
   */
  observe(observer: (event: SessionEvent) => void): void {
    this.#observers.push(observer);
  }

  /** The last number assigned. */
  get latestSequence(): number {
    return this.#o.numbering.latestSequence();
  }

  /** Set once step 1 failed; the session cannot append any more. */
  get broken(): AppendError | undefined {
    return this.#broken;
  }

  /** Resolves when every append queued so far has finished. */
  idle(): Promise<void> {
    return this.#tail.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Appends one event created with `sequenceNumber` 0 and returns the numbered event. */
  append<E extends SessionEvent>(event: E): Promise<E> {
    const run = this.#tail.then(
      () => this.#appendNow(event),
      () => this.#appendNow(event),
    );
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #appendNow<E extends SessionEvent>(event: E): Promise<E> {
    if (this.#broken !== undefined) {
      throw new AppendError('event_store.append', 'session_broken', this.#broken.message, {
        cause: this.#broken,
      });
    }
    const stored = await this.#storeAndPublish(event);
    // Steps run in order (R5.6); a synchronous step is not awaited (no extra ticks).
    const usage = this.#step('session_event.record_usage', stored, () =>
      this.#o.usage.recordUsage(stored),
    );
    if (usage !== undefined) await usage;
    if (this.#sinks.length > 0) {
      for (const sink of [...this.#sinks]) {
        const notified = this.#step(
          'session_event.notify_sinks',
          stored,
          () => sink.onSessionEvent(stored),
          sink.name,
        );
        if (notified !== undefined) await notified;
      }
    }
    this.#logByFrequency(stored);
    return stored;
  }

  async #storeAndPublish<E extends SessionEvent>(event: E): Promise<E> {
    const stored = this.#o.numbering.append(event);
    for (const observer of this.#observers) observer(stored);
    let outcome: Awaited<ReturnType<EventPublisher['publish']>>;
    try {
      outcome = await this.#o.publisher.publish(stored, this.#lastDurable);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      throw this.#break(
        new AppendError('event_store.append', 'publish_failed', message, { cause }),
      );
    }
    if (!outcome.ok && outcome.reason === 'refused') {
      this.#o.numbering.withdraw(stored);
      const error = new AppendError(
        'event_store.append',
        'refused',
        `${stored.type} refused: ${outcome.detail}`,
        { eventType: stored.type },
      );
      this.#o.logger.error(
        { sessionId: stored.sessionId, type: stored.type, seq: stored.sequenceNumber, err: error },
        'event refused; its number is withdrawn',
      );
      throw error;
    }
    if (!outcome.ok) {
      throw this.#break(new AppendError('event_store.append', 'fenced', outcome.detail));
    }
    if (!isTransientEventType(stored.type)) this.#lastDurable = stored.sequenceNumber;
    return stored;
  }

  #break(error: AppendError): AppendError {
    this.#broken = error;
    this.#o.onBroken?.(error);
    return error;
  }

  /** Runs one step; a promise only when the step returned one, so it must be awaited. */
  #step(
    phase: string,
    event: SessionEvent,
    run: () => unknown,
    sink?: string,
  ): Promise<void> | undefined {
    let result: unknown;
    try {
      result = run();
    } catch (err) {
      this.#report(phase, event, err, sink);
      return undefined;
    }
    if (!isPromiseLike(result)) return undefined;
    return Promise.resolve(result).then(
      () => undefined,
      (err: unknown) => this.#report(phase, event, err, sink),
    );
  }

  #report(phase: string, event: SessionEvent, err: unknown, sink: string | undefined): void {
    const fields = {
      err,
      phase,
      sessionId: event.sessionId,
      type: event.type,
      seq: event.sequenceNumber,
      sink,
    };
    if (phase === 'session_event.notify_sinks') this.#o.logger.error(fields, `${phase} failed`);
    else this.#o.logger.warn(fields, `${phase} failed`);
  }

  /** R5.5: lifecycle at info; streaming summarised per turn every 100 events. */
  #logByFrequency(event: SessionEvent): void {
    const fields = {
      sessionId: event.sessionId,
      turnId: event.turnId,
      type: event.type,
      seq: event.sequenceNumber,
    };
    if (LIFECYCLE.has(event.type)) {
      this.#o.logger.info(fields, event.type);
      if (event.type !== 'turn_started' && event.turnId !== null)
        this.#streamCounts.delete(event.turnId);
      return;
    }
    if (!isTransientEventType(event.type) || event.turnId === null) return;
    const count = (this.#streamCounts.get(event.turnId) ?? 0) + 1;
    this.#streamCounts.set(event.turnId, count);
    if (count % SUMMARY_EVERY === 0) this.#o.logger.info({ ...fields, count }, 'streaming events');
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
