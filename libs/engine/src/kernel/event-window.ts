import { isTransientEventType, type SessionEvent } from '@agentwire/contracts';

/**
 * The in-memory event store of one session (R3.1): it assigns sequence numbers (R2.2,
 * R3.2) and evicts a sealed turn's transient events (R3.3, R3.4). Numbers continue from
 * `startAfter`, the highest number known anywhere (stream or Postgres high-water mark), so
 * they are never reused after a restart (R2.3, DESIGN.md flow 5).
 */
export class EventWindow {
  readonly #events: SessionEvent[] = [];
  #latest: number;

  constructor(startAfter = 0) {
    this.#latest = startAfter;
  }

  /** Assigns the next number and keeps the event (R2.2). */
  append<E extends SessionEvent>(event: E): E {
    this.#latest += 1;
    const stored = { ...event, sequenceNumber: this.#latest };
    this.#events.push(stored);
    return stored;
  }

  /**
   * Takes back the number of `event`, the last one assigned, which was refused and never
   * stored (docs/decisions/0160): no one saw it, so the next event takes it and the session
   * stays gapless (R2.3 forbids reusing a number that was stored, which this never was).
   */
  withdraw(event: SessionEvent): void {
    const last = this.#events.at(-1);
    if (event.sequenceNumber !== this.#latest || last?.id !== event.id) {
      throw new Error(
        `cannot withdraw event ${event.id} (${event.sequenceNumber}): the last assigned is ${this.#latest}`,
      );
    }
    this.#events.pop();
    this.#latest -= 1;
  }

  /** Every retained event, in order. */
  readAll(): readonly SessionEvent[] {
    return this.#events;
  }

  /** Retained events numbered above `sequence`. */
  readAfter(sequence: number): readonly SessionEvent[] {
    return this.#events.filter((e) => e.sequenceNumber > sequence);
  }

  /** The last number assigned (R3.1). */
  latestSequence(): number {
    return this.#latest;
  }

  /** Drops the transient events of a sealed turn (R3.3); numbers are untouched (R3.6). */
  evictTransient(turnId: string): number {
    let removed = 0;
    for (let i = this.#events.length - 1; i >= 0; i -= 1) {
      const e = this.#events[i];
      if (e !== undefined && e.turnId === turnId && isTransientEventType(e.type)) {
        this.#events.splice(i, 1);
        removed += 1;
      }
    }
    return removed;
  }

  /** Forgets every event; the number is kept so it is never reused (R2.3). */
  clear(): void {
    this.#events.length = 0;
  }
}
