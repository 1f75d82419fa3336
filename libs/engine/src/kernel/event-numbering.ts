import type { SessionEvent } from '@agentwire/contracts';

/**
 * The numbering of one session's events (R2.2, R3.2): the next number, and the last event
 * that took one. Numbers continue from `startAfter`, the highest number known anywhere
 * (stream or Postgres high-water mark), so they are never reused after a restart (R2.3,
 * DESIGN.md flow 5). The events themselves are kept by the stream, whose retention
 * (R3.3-R3.5) the session's {@link TransientEviction} schedules (docs/decisions/0154).
 */
export class EventNumbering {
  #latest: number;
  #lastId: string | undefined;

  constructor(startAfter = 0) {
    this.#latest = startAfter;
  }

  /** Gives `event` the next number (R2.2). */
  append<E extends SessionEvent>(event: E): E {
    this.#latest += 1;
    this.#lastId = event.id;
    return { ...event, sequenceNumber: this.#latest };
  }

  /**
   * Takes back the number of `event`, the last one assigned, which was refused and never
   * stored (docs/decisions/0160): no one saw it, so the next event takes it and the session
   * stays gapless (R2.3 forbids reusing a number that was stored, which this never was).
   */
  withdraw(event: SessionEvent): void {
    if (event.sequenceNumber !== this.#latest || this.#lastId !== event.id) {
      throw new Error(
        `cannot withdraw event ${event.id} (${event.sequenceNumber}): the last assigned is ${this.#latest}`,
      );
    }
    this.#latest -= 1;
    this.#lastId = undefined;
  }

  /** The last number assigned (R3.1). */
  latestSequence(): number {
    return this.#latest;
  }
}
