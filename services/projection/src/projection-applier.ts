import { noopLogger } from '@agentwire/telemetry';
import type { ApplierContext } from './applier-context.ts';
import type { ApplierOptions } from './applier-options.ts';
import { type ApplierStats, createApplierStats } from './applier-stats.ts';
import { applySession } from './apply-session.ts';
import { deadLetterConflicts } from './dead-letter-held.ts';
import type { Delivery } from './delivery.ts';
import { countHeld, keepHeldAlive, nakExpired, shedHeld } from './held-deliveries.ts';
import { createSessionState, type SessionState } from './session-state.ts';
import { settleForOwner } from './settle-for-owner.ts';
import { reportIfStuck, type StuckSession, stuckSessions } from './stuck-session.ts';

/** How often held deliveries are checked against `holdMs` and `maxHeld` (ms). */
const SWEEP_MS = 250;

/**
 * Applies each session's events strictly in sequence order (DESIGN.md flow 3, R10.1):
 * deliveries are held per session until they chain from the stored last sequence
 * ({@link SessionQueue}), every chain is reduced and written with one compare-and-set, and
 * only then acked. A lost race (another instance wrote first) re-reads the row and retries,
 * so competing instances never lose an update; duplicates are acked and dropped; a gap
 * waits (held in memory, re-checked against the store, naked with a delay after `holdMs`).
 */
export class ProjectionApplier<P> {
  readonly stats: ApplierStats = createApplierStats();
  private readonly sessions = new Map<string, SessionState<P>>();
  private readonly options: ApplierOptions<P>;
  private readonly ctx: ApplierContext<P>;
  private readonly idle = new Set<() => void>();
  private lastKeepAlive = 0;
  private lastSweep = 0;

  constructor(options: ApplierOptions<P>) {
    this.options = options;
    this.ctx = {
      options,
      logger: options.logger ?? noopLogger,
      stats: this.stats,
      markBlocked: (sessionId, seq, code) => this.markBlocked(sessionId, seq, code),
    };
  }

  /**
   * Takes one delivery; settles it (now or later) by ack, nak or dead-letter. A delivery of
   * a session another instance owns is only held (its owner applies a forwarded copy).
   */
  accept(delivery: Delivery): void {
    const event = delivery.event;
    const state = this.state(event.sessionId);
    const now = this.options.now();
    this.stats.accepted += 1;
    this.stats.pickupMs += Math.max(0, now - delivery.storedAt);
    const passive = delivery.forwarded !== true && !this.owns(event.sessionId);
    // A passive session's take-over clock starts with its first held delivery.
    if (passive && state.queue.size === 0 && !state.running) state.lastCheck = now;
    state.queue.add({
      seq: event.sequenceNumber,
      prev: delivery.prev,
      heldSince: now,
      item: delivery,
    });
    if (!passive || state.running) this.schedule(event.sessionId, state);
  }

  private owns(sessionId: string): boolean {
    return this.options.owns?.(sessionId) ?? true;
  }

  /**
   * Notes that another instance (or a rebuild) stored `last` for a session. Only when this
   * instance holds the event that follows `last` is the row re-read (one read per hand-over);
   * otherwise held events at or below `last` are acked as duplicates without a read.
   */
  noteCommitted(sessionId: string, last: number): void {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return;
    state.noticed = Math.max(state.noticed, last);
    if (state.queue.size === 0) return;
    if (state.known !== undefined && state.known.last >= last) return;
    if (!this.owns(sessionId)) {
      settleForOwner(this.ctx, sessionId, state, last);
      return;
    }
    if (state.queue.hasSuccessorOf(last)) {
      state.known = undefined;
      this.stats.readsOnNotice += 1;
      this.schedule(sessionId, state);
      return;
    }
    const drained = state.queue.drain(last);
    for (const d of drained.duplicates) d.item.ack();
    this.stats.duplicates += drained.duplicates.length;
    deadLetterConflicts(this.ctx, sessionId, drained, last);
  }

  /**
   * Re-reads a session's row and applies what this instance holds for it: the session
   * moved to this instance (its owner left), so its held deliveries are no longer passive.
   */
  takeOver(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state === undefined || state.queue.size === 0) return;
    state.known = undefined;
    this.schedule(sessionId, state);
  }

  /**
   * The session moved to another owner, which now receives this instance's held deliveries
   * of it: they stay held for that owner, and the take-over clock starts now.
   */
  handOff(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state !== undefined) state.lastCheck = this.options.now();
  }

  /** Forgets the cached row of a session (a rebuild overwrote it). */
  invalidate(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state !== undefined) state.known = undefined;
  }

  /**
   * Periodic work: re-reads waiting sessions' rows, naks deliveries held past `holdMs`,
   * reports stuck sessions once, and forgets idle sessions.
   */
  tick(): void {
    const now = this.options.now();
    if (now - this.lastKeepAlive >= this.options.keepAliveMs) {
      this.lastKeepAlive = now;
      keepHeldAlive(this.sessions);
    }
    // Expiry and shedding walk every held delivery: at most once per SWEEP_MS, not every tick.
    const sweep = now - this.lastSweep >= Math.min(SWEEP_MS, this.options.keepAliveMs);
    if (sweep) {
      this.lastSweep = now;
      shedHeld(this.ctx, this.sessions);
    }
    for (const [sessionId, state] of this.sessions) {
      if (sweep) nakExpired(this.ctx, state, now);
      reportIfStuck(this.ctx, sessionId, state, now);
      if (state.queue.size === 0) {
        const forgettable = !state.running && state.waitingSince === undefined;
        if (forgettable && now - state.lastActive > 60_000) this.sessions.delete(sessionId);
        continue;
      }
      if (!state.running && now - state.lastCheck >= this.options.recheckMs) {
        state.known = undefined;
        this.stats.readsOnRecheck += 1;
        this.schedule(sessionId, state);
      }
    }
  }

  /** Sessions waiting longer than `stuckAfterMs` (issue 5). */
  stuck(): StuckSession[] {
    return stuckSessions(this.sessions, this.options.now(), this.options.stuckAfterMs);
  }

  /** Deliveries held in memory across sessions. */
  held(): number {
    return countHeld(this.sessions);
  }

  /** Records that a session's event was dead-lettered before reaching the applier. */
  markBlocked(sessionId: string, seq: number, code: string): void {
    const state = this.state(sessionId);
    state.blockedBy = { seq, code };
    state.waitingSince ??= this.options.now();
  }

  /**
   * Drain (SIGTERM): waits for running applies, then naks every held delivery without
   * delay so that another instance takes it at once.
   */
  async drain(): Promise<void> {
    while ([...this.sessions.values()].some((s) => s.running)) {
      await new Promise<void>((resolve) => this.idle.add(resolve));
    }
    for (const state of this.sessions.values()) {
      for (const held of state.queue.takeAll()) held.item.nak(0);
    }
  }

  private state(sessionId: string): SessionState<P> {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = createSessionState<P>(this.options.now());
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  private schedule(sessionId: string, state: SessionState<P>): void {
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = true;
    void this.run(sessionId, state);
  }

  private async run(sessionId: string, state: SessionState<P>): Promise<void> {
    try {
      do {
        state.again = false;
        await applySession(this.ctx, sessionId, state);
      } while (state.again);
    } finally {
      state.running = false;
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }
}
