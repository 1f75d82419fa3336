import {
  loadSessionFence,
  publishEvent,
  type SessionFence,
  type StreamPublisher,
} from '@agentwire/bus';
import type { Names, SessionEvent } from '@agentwire/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { EventPublisher, PublishOutcome } from '../core/ports.ts';
import type { LeaseManager } from './lease-manager.ts';

/** Options of {@link JetStreamPublisher}. */
export interface JetStreamPublisherOptions {
  /** Where events go: the runtime's `PublishPipeline` (or any `js.publish`-alike). */
  readonly eventPublisher: StreamPublisher;
  readonly jsm: JetStreamManager;
  readonly names: Names;
  readonly sessionId: string;
  readonly fence: SessionFence;
  readonly leases: LeaseManager;
}

/**
 * Step 1's publish (R5.1) through `@agentwire/bus` with the session fence
 * (docs/decisions/0040): every event expects its subject's last stream sequence, so a
 * runtime that lost its lease is rejected by the broker. It also fences itself: once its
 * local lease deadline passed it publishes nothing. A `fenced` answer is retried once only
 * if the bucket still shows this instance's lease (the subject may have aged out).
 */
export class JetStreamPublisher implements EventPublisher {
  readonly #o: JetStreamPublisherOptions;
  #fence: SessionFence;

  constructor(options: JetStreamPublisherOptions) {
    this.#o = options;
    this.#fence = options.fence;
  }

  /** The fence, for purges (`forgetTurn`). */
  get fence(): SessionFence {
    return this.#fence;
  }

  async publish(event: SessionEvent, previousDurableSequence: number): Promise<PublishOutcome> {
    if (!this.#o.leases.isValid(this.#o.sessionId)) {
      return { ok: false, reason: 'fenced', detail: 'the local lease deadline has passed' };
    }
    const first = await this.#attempt(event, previousDurableSequence);
    if (first.ok || !(await this.#o.leases.verify(this.#o.sessionId))) return first;
    this.#fence = await loadSessionFence(this.#o.jsm, this.#o.names, this.#o.sessionId);
    return this.#attempt(event, previousDurableSequence);
  }

  async #attempt(event: SessionEvent, previousDurableSequence: number): Promise<PublishOutcome> {
    const result = await publishEvent(this.#o.eventPublisher, this.#o.names, event, {
      expectedLastSubjectSequence: this.#fence.expectedFor(event),
      previousDurableSequence,
      // Built by createEvent (schema-checked at creation), numbered by the window only.
      prevalidated: true,
    });
    if (result.kind === 'fenced') {
      const actual =
        result.actualLastSequence === undefined ? '' : ` (last ${result.actualLastSequence})`;
      return {
        ok: false,
        reason: 'fenced',
        detail: `the broker rejected the expected sequence${actual}`,
      };
    }
    this.#fence.advance(event, result.streamSequence);
    return { ok: true, duplicate: result.kind === 'duplicate' };
  }
}
