import {
  type BlobOffload,
  BusError,
  type BusErrorCode,
  eventSubjectOf,
  onlyGarbageBetween,
  publishEvent,
  type SessionFence,
  type StreamPublisher,
} from '@agentwire/bus';
import type { Names, SessionEvent } from '@agentwire/contracts';
import type { EventPublisher, PublishOutcome, RuntimeLogger } from '@agentwire/engine';
import { backoffMs } from '@agentwire/service';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { LeaseManager } from './lease-manager.ts';

/** Options of {@link JetStreamPublisher}. */
export interface JetStreamPublisherOptions {
  /** Where events go: the runtime's `PublishPipeline` (or any `js.publish`-alike). */
  readonly eventPublisher: StreamPublisher;
  readonly names: Names;
  readonly sessionId: string;
  readonly fence: SessionFence;
  readonly leases: LeaseManager;
  readonly jsm: JetStreamManager;
  readonly logger: RuntimeLogger;
  /** Pauses between retries of a publish the broker did not answer (default 100 ms .. 2 s). */
  readonly retryDelayMs?: (attempt: number) => number;
  /**
   * Told, with the time since the first attempt, each time a publish is retried because the
   * broker is away: the session decides when its turn has waited long enough.
   */
  readonly onRetry?: (stalledMs: number) => void;
  /** The bound on an event's body and where larger fields go (docs/decisions/0162). */
  readonly offload?: BlobOffload;
}

/** Bus errors of a publish that stored nothing: retrying the same event cannot succeed. */
const REFUSALS: ReadonlySet<BusErrorCode> = new Set(['publish_refused', 'invalid_event']);

/** Thrown when a publish was still being retried as the session was abandoned. */
class PublishAbandoned extends Error {
  override readonly name = 'PublishAbandoned';
}

/**
 * Step 1's publish (R5.1) through `@agentwire/bus` with the session fence
 * (docs/decisions/0040, 0110): every event expects its subject's last stream sequence, so
 * a runtime that lost the session is refused by the broker. It also fences itself: past its
 * local lease deadline it first renews the lease (a compare-and-set that fails if anyone
 * took it), and publishes nothing if that fails.
 *
 * A `fenced` answer is final, with two exceptions: the subject's actual last sequence is
 * *below* the expected one, so messages were only removed there (age limit, purge; stream
 * sequences only grow, so a foreign write would show a higher one); or everything stored
 * there since is garbage (no event, no fence marker: issue 9). Then the fence adopts the
 * actual sequence and the publish is retried once. A fence
 * is never reloaded from the stream blindly: that is how a second writer once numbered
 * over a live one (issue 21).
 */
export class JetStreamPublisher implements EventPublisher {
  readonly #o: JetStreamPublisherOptions;
  #abandoned = false;

  constructor(options: JetStreamPublisherOptions) {
    this.#o = options;
  }

  /** The fence, for purges (`forgetTurn`). */
  get fence(): SessionFence {
    return this.#o.fence;
  }

  /** Ends any retry in progress (the session left residency): it rejects `PublishAbandoned`. */
  abandon(): void {
    this.#abandoned = true;
  }

  /**
   * Publishes once the lease is known valid, retrying while the broker is away (a timeout,
   * a lost connection, a renewal that could not be asked) with the same event: the same
   * `Nats-Msg-Id` inside the dedupe window and the same fence, so an attempt that did land
   * answers `duplicate` (issue 9). A session pauses this way; it never breaks for it. An
   * event the broker refused, or too large to send, is answered `refused` at once.
   */
  async publish(event: SessionEvent, previousDurableSequence: number): Promise<PublishOutcome> {
    const started = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 0) {
        if (this.#abandoned) throw new PublishAbandoned(`publishing ${event.id} was abandoned`);
        this.#o.onRetry?.(Date.now() - started);
        await pause(this.#o.retryDelayMs?.(attempt) ?? backoffMs(attempt, Math.random, 100, 2_000));
      }
      const valid = this.#o.leases.ensureValid(this.#o.sessionId);
      const validity = valid === true ? 'valid' : await valid;
      if (validity === 'lost') {
        return { ok: false, reason: 'fenced', detail: 'the lease was taken or expired' };
      }
      if (validity === 'unknown') continue;
      try {
        return await this.#publishFenced(event, previousDurableSequence);
      } catch (err) {
        // Not stored and never will be: the session withdraws its number (0160).
        if (err instanceof BusError && REFUSALS.has(err.code)) {
          return { ok: false, reason: 'refused', detail: err.message };
        }
        if (!(err instanceof BusError && err.retryable)) throw err;
      }
    }
  }

  async #publishFenced(
    event: SessionEvent,
    previousDurableSequence: number,
  ): Promise<PublishOutcome> {
    const first = await this.#attempt(event, previousDurableSequence);
    if (first.ok || first.actual === undefined) return first.outcome;
    const expected = this.#o.fence.expectedFor(event);
    if (first.actual > expected && !(await this.#garbageOnly(event, expected, first.actual))) {
      return first.outcome;
    }
    this.#o.fence.rewind(event, first.actual);
    return (await this.#attempt(event, previousDurableSequence)).outcome;
  }

  /** Whether what moved the fence is garbage someone published there, not another writer. */
  async #garbageOnly(event: SessionEvent, expected: number, actual: number): Promise<boolean> {
    const subject = eventSubjectOf(this.#o.names, event);
    const garbage = await onlyGarbageBetween(
      this.#o.jsm,
      this.#o.names.eventsStream,
      subject,
      expected,
      actual,
    ).catch(() => false);
    if (garbage) this.#o.logger.warn({ subject, expected, actual }, 'skipping garbage on subject');
    return garbage;
  }

  async #attempt(
    event: SessionEvent,
    previousDurableSequence: number,
  ): Promise<
    | { readonly ok: true; readonly outcome: PublishOutcome }
    | { readonly ok: false; readonly outcome: PublishOutcome; readonly actual?: number }
  > {
    const expected = this.#o.fence.expectedFor(event);
    const result = await publishEvent(this.#o.eventPublisher, this.#o.names, event, {
      expectedLastSubjectSequence: expected,
      previousDurableSequence,
      // Built by createEvent (schema-checked at creation), numbered by the window only.
      prevalidated: true,
      ...(this.#o.offload === undefined ? {} : { offload: this.#o.offload }),
    });
    if (result.kind === 'fenced') {
      const actual = result.actualLastSequence;
      const shown = actual === undefined ? '' : ` (expected ${expected}, last ${actual})`;
      return {
        ok: false,
        outcome: {
          ok: false,
          reason: 'fenced',
          detail: `the broker rejected the expected sequence${shown}`,
        },
        ...(actual === undefined ? {} : { actual }),
      };
    }
    this.#o.fence.advance(event, result.streamSequence);
    return { ok: true, outcome: { ok: true, duplicate: result.kind === 'duplicate' } };
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
