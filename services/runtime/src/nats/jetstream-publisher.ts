import { publishEvent, type SessionFence, type StreamPublisher } from '@agentwire/bus';
import type { Names, SessionEvent } from '@agentwire/contracts';
import type { EventPublisher, PublishOutcome } from '../core/ports.ts';
import type { LeaseManager } from './lease-manager.ts';

/** Options of {@link JetStreamPublisher}. */
export interface JetStreamPublisherOptions {
  /** Where events go: the runtime's `PublishPipeline` (or any `js.publish`-alike). */
  readonly eventPublisher: StreamPublisher;
  readonly names: Names;
  readonly sessionId: string;
  readonly fence: SessionFence;
  readonly leases: LeaseManager;
}

/**
 * Step 1's publish (R5.1) through `@agentwire/bus` with the session fence
 * (docs/decisions/0040, 0110): every event expects its subject's last stream sequence, so
 * a runtime that lost the session is refused by the broker. It also fences itself: past its
 * local lease deadline it first renews the lease (a compare-and-set that fails if anyone
 * took it), and publishes nothing if that fails.
 *
 * A `fenced` answer is final, with one exception the broker's answer proves: the subject's
 * actual last sequence is *below* the expected one, so messages were only removed there
 * (age limit, purge); stream sequences only grow, so any foreign write would show a higher
 * one. Then the fence adopts the actual sequence and the publish is retried once. A fence
 * is never reloaded from the stream blindly: that is how a second writer once numbered
 * over a live one (issue 21).
 */
export class JetStreamPublisher implements EventPublisher {
  readonly #o: JetStreamPublisherOptions;

  constructor(options: JetStreamPublisherOptions) {
    this.#o = options;
  }

  /** The fence, for purges (`forgetTurn`). */
  get fence(): SessionFence {
    return this.#o.fence;
  }

  async publish(event: SessionEvent, previousDurableSequence: number): Promise<PublishOutcome> {
    const valid = this.#o.leases.ensureValid(this.#o.sessionId);
    if (valid !== true && !(await valid)) {
      return { ok: false, reason: 'fenced', detail: 'the lease could not be renewed' };
    }
    const first = await this.#attempt(event, previousDurableSequence);
    if (first.ok || first.actual === undefined) return first.outcome;
    const expected = this.#o.fence.expectedFor(event);
    if (first.actual >= expected) return first.outcome;
    this.#o.fence.rewind(event, first.actual);
    return (await this.#attempt(event, previousDurableSequence)).outcome;
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
