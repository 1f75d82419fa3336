import { isTransientEventType, type SessionEvent } from '@agentwire/contracts';

/**
 * One session's events held by the in-memory store, with the turn bookkeeping of the
 * turn-window retention (R3.3-R3.5). Internal to {@link InMemorySessionEventStore}.
 */
export class SessionLog {
  /** The last number assigned; survives eviction and deletion (R2.3). */
  lastSequenceNumber = 0;
  /** Held events, in number order. */
  events: SessionEvent[] = [];
  /** Turns sealed by `turn_complete` / `turn_error` whose transient events are still held. */
  readonly sealedAt = new Map<string, number>();
  /** Turns whose transient events were evicted: late transient events are not kept. */
  readonly evictedTurns = new Set<string>();

  /** Index of the first held event numbered above `sequenceNumber` (binary search). */
  indexAfter(sequenceNumber: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as SessionEvent).sequenceNumber <= sequenceNumber) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Evicts the transient events of `turns` and forgets their seal; returns how many events
   * went. Non-transient events and other turns' events stay.
   */
  evictTurns(turns: ReadonlySet<string>): number {
    if (turns.size === 0) return 0;
    const before = this.events.length;
    this.events = this.events.filter(
      (e) => e.turnId === null || !turns.has(e.turnId) || !isTransientEventType(e.type),
    );
    for (const t of turns) {
      this.sealedAt.delete(t);
      this.evictedTurns.add(t);
    }
    return before - this.events.length;
  }
}
