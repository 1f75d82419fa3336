import {
  isTransientEventType,
  type SessionEvent,
  type SessionEventStore,
} from '@agentwire/contracts';
import { EventStoreError } from './event-store-error.ts';
import { SessionLog } from './session-log.ts';

/**
 * A sealed single-turn session's transient events go after this long (R3.5).
 *
 * @internal Exported for its tests.
 */
export const SEALED_TURN_RETENTION_MS = 120_000;

export interface InMemorySessionEventStoreOptions {
  /** Epoch-ms clock stamping when a turn is sealed; injected so tests need no sleeps. */
  readonly now: () => number;
  /** Defaults to {@link SEALED_TURN_RETENTION_MS}. */
  readonly sealedTurnRetentionMs?: number;
}

/** Counters of the store (R3.3): events held now and evicted so far. */
export interface EventStoreCounters {
  readonly sessions: number;
  readonly heldEvents: number;
  readonly evictedEvents: number;
}

/**
 * An in-memory `SessionEventStore` (the port of `@agentwire/contracts`) with turn-window retention (R3.3-R3.6):
 * - `append` numbers events 1, 2, 3... per session (R2.2, R2.3);
 * - `turn_complete` / `turn_error` seal their turn (R3.4);
 * - the next `turn_started` evicts the transient events of every sealed turn (one turn of
 *   lag, R3.4);
 * - {@link sweep} evicts the transient events of turns sealed more than 120 s ago, for
 *   sessions that never see a next turn (R3.5);
 * - a transient event arriving for a turn already evicted is numbered and returned for live
 *   delivery but not kept;
 * - numbers are never reused, even after eviction or `deleteSession` (R3.6).
 * Transient events without a turn id are never evicted.
 */
export class InMemorySessionEventStore implements SessionEventStore {
  readonly #logs = new Map<string, SessionLog>();
  readonly #now: () => number;
  readonly #retentionMs: number;
  #held = 0;
  #evicted = 0;

  constructor(options: InMemorySessionEventStoreOptions) {
    this.#now = options.now;
    this.#retentionMs = options.sealedTurnRetentionMs ?? SEALED_TURN_RETENTION_MS;
  }

  /** Synchronous {@link append}, for in-process callers and benchmarks. */
  appendSync(event: SessionEvent): SessionEvent {
    if (event.sequenceNumber !== 0) {
      throw new EventStoreError(
        'AW_EVENT_STORE_ALREADY_NUMBERED',
        `event ${event.id} already carries sequence number ${event.sequenceNumber}; the store assigns numbers (R2.2)`,
      );
    }
    const log = this.#log(event.sessionId);
    const stored = { ...event, sequenceNumber: ++log.lastSequenceNumber } as SessionEvent;
    const turnId = stored.turnId;
    if (turnId !== null) {
      if (stored.type === 'turn_started') this.#startTurn(log, turnId);
      else if (stored.type === 'turn_complete' || stored.type === 'turn_error') {
        if (!log.evictedTurns.has(turnId)) log.sealedAt.set(turnId, this.#now());
      } else if (log.evictedTurns.has(turnId) && isTransientEventType(stored.type)) {
        this.#evicted++;
        return stored;
      }
    }
    log.events.push(stored);
    this.#held++;
    return stored;
  }

  async append(event: SessionEvent): Promise<SessionEvent> {
    return this.appendSync(event);
  }

  async readAll(sessionId: string): Promise<readonly SessionEvent[]> {
    return [...(this.#logs.get(sessionId)?.events ?? [])];
  }

  async readAfter(
    sessionId: string,
    afterSequenceNumber: number,
  ): Promise<readonly SessionEvent[]> {
    const log = this.#logs.get(sessionId);
    if (log === undefined) return [];
    return log.events.slice(log.indexAfter(afterSequenceNumber));
  }

  async latestSequenceNumber(sessionId: string): Promise<number> {
    return this.#logs.get(sessionId)?.lastSequenceNumber ?? 0;
  }

  async deleteSession(sessionId: string): Promise<void> {
    const log = this.#logs.get(sessionId);
    if (log === undefined) return;
    this.#held -= log.events.length;
    log.events = [];
    log.sealedAt.clear();
    log.evictedTurns.clear();
  }

  /**
   * The 60 s sampling tick of R3.5: evicts the transient events of turns sealed more than
   * the retention (120 s) before `now`. Returns how many events went.
   */
  sweep(now: number = this.#now()): number {
    let evicted = 0;
    for (const log of this.#logs.values()) {
      const old = new Set<string>();
      for (const [turnId, sealedAt] of log.sealedAt) {
        if (now - sealedAt > this.#retentionMs) old.add(turnId);
      }
      evicted += this.#evict(log, old);
    }
    return evicted;
  }

  /** Events held and evicted so far, over all sessions. */
  counters(): EventStoreCounters {
    return { sessions: this.#logs.size, heldEvents: this.#held, evictedEvents: this.#evicted };
  }

  #startTurn(log: SessionLog, turnId: string): void {
    log.sealedAt.delete(turnId);
    log.evictedTurns.delete(turnId);
    this.#evict(log, new Set(log.sealedAt.keys()));
  }

  #evict(log: SessionLog, turns: ReadonlySet<string>): number {
    const n = log.evictTurns(turns);
    this.#held -= n;
    this.#evicted += n;
    return n;
  }

  #log(sessionId: string): SessionLog {
    let log = this.#logs.get(sessionId);
    if (log === undefined) {
      log = new SessionLog();
      this.#logs.set(sessionId, log);
    }
    return log;
  }
}
