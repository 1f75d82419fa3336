import type { SessionEvent } from '@agentwire/contracts';
import { classifyPgError } from '@agentwire/store';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { Delivery } from './delivery.ts';
import type { ProjectionStore } from './projection-store.ts';
import { type Held, SessionQueue } from './session-queue.ts';
import type { WriteCoalescer } from './write-coalescer.ts';

/** The domain reducer as the applier sees it (R10.1): `undefined` is "no event yet". */
export type Reduce<P> = (projection: P | undefined, event: SessionEvent) => P;

/** Tunables of {@link ProjectionApplier} (see `ProjectionConfig`). */
export interface ApplierOptions<P> {
  readonly reader: Pick<ProjectionStore, 'get'>;
  readonly writer: WriteCoalescer;
  readonly reduce: Reduce<P>;
  readonly now: () => number;
  /**
   * Hold an out-of-order event at most this long before naking it. While held, the event's
   * ack deadline is extended every `keepAliveMs`, so the broker does not redeliver it.
   */
  readonly holdMs: number;
  /** How often held events are marked as in progress (below the consumer's ack wait). */
  readonly keepAliveMs: number;
  /** Most events held in memory; beyond it the newest held events are naked. */
  readonly maxHeld: number;
  readonly gapNakDelayMs: number;
  /** Re-read a waiting session's row after this long without progress. */
  readonly recheckMs: number;
  readonly stuckAfterMs: number;
  /** Deliveries before a retryable failure is dead-lettered. */
  readonly maxDeliver: number;
  /**
   * Whether this instance applies a session (docs/decisions/0063). For a session it does not
   * own it only holds the deliveries, acks them once the owner's commit notice covers them,
   * and takes over (re-reads and applies itself) after `recheckMs` without progress.
   * Absent: this instance applies every session.
   */
  readonly owns?: (sessionId: string) => boolean;
  /** Told after each commit; the service publishes it for other instances and benches. */
  readonly onCommitted?: (sessionId: string, lastSequence: number) => void;
  readonly logger?: Logger;
}

/** How often held deliveries are checked against `holdMs` and `maxHeld` (ms). */
const SWEEP_MS = 250;

/** Counters read by the metrics endpoint (issue 5: lag, applied/s, gap naks, stuck). */
export interface ApplierStats {
  applied: number;
  duplicates: number;
  gapNaks: number;
  casConflicts: number;
  deadLettered: number;
  storeErrors: number;
  commits: number;
  /** Row reads, and those a commit notice or a periodic recheck caused (hand-over cost). */
  reads: number;
  readsOnNotice: number;
  readsOnRecheck: number;
  /** Milliseconds spent waiting for row reads and for compare-and-set writes (summed). */
  readMs: number;
  writeMs: number;
  /** Milliseconds from stream store to arrival in this instance (summed over deliveries). */
  pickupMs: number;
  accepted: number;
  /** Held deliveries of sessions another instance owns, acked on that owner's notice. */
  ackedForOwner: number;
  /** Store-to-commit lag of each applied event (ms), drained by the metrics reader. */
  lagMs: number[];
}

interface SessionState<P> {
  readonly queue: SessionQueue<Delivery>;
  /** The row as this instance last knew it; `undefined` = read it before use. */
  known: { projection: P | undefined; last: number } | undefined;
  running: boolean;
  again: boolean;
  /** Since when the session waits for a predecessor; cleared by progress. */
  waitingSince: number | undefined;
  lastCheck: number;
  lastActive: number;
  /** Why the session cannot progress, once known (a dead-lettered predecessor). */
  blockedBy: { seq: number; code: string } | undefined;
  reportedStuck: boolean;
  /** Highest last sequence other writers announced; above `known.last`, the cache is stale. */
  noticed: number;
}

/** A session waiting too long for its predecessor (issue 5: reported, never skipped). */
export interface StuckSession {
  readonly sessionId: string;
  readonly awaitedSeq: number | undefined;
  readonly waitingMs: number;
  readonly blockedBy: { seq: number; code: string } | undefined;
}

/**
 * Applies each session's events strictly in sequence order (DESIGN.md flow 3, R10.1):
 * deliveries are held per session until they chain from the stored last sequence
 * ({@link SessionQueue}), every chain is reduced and written with one compare-and-set, and
 * only then acked. A lost race (another instance wrote first) re-reads the row and retries,
 * so competing instances never lose an update; duplicates are acked and dropped; a gap
 * waits (held in memory, re-checked against the store, naked with a delay after `holdMs`).
 */
export class ProjectionApplier<P> {
  readonly stats: ApplierStats = {
    applied: 0,
    duplicates: 0,
    gapNaks: 0,
    casConflicts: 0,
    deadLettered: 0,
    storeErrors: 0,
    commits: 0,
    reads: 0,
    readsOnNotice: 0,
    readsOnRecheck: 0,
    readMs: 0,
    writeMs: 0,
    pickupMs: 0,
    accepted: 0,
    ackedForOwner: 0,
    lagMs: [],
  };
  private readonly sessions = new Map<string, SessionState<P>>();
  private readonly options: ApplierOptions<P>;
  private readonly logger: Logger;
  private readonly idle = new Set<() => void>();
  private lastKeepAlive = 0;
  private lastSweep = 0;

  constructor(options: ApplierOptions<P>) {
    this.options = options;
    this.logger = options.logger ?? noopLogger;
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
      this.settleForOwner(sessionId, state, last);
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
    for (const c of drained.conflicts) {
      this.deadLetter(
        sessionId,
        c,
        'prev_seq_conflict',
        `Aw-Prev-Seq ${c.prev} contradicts applied sequence ${last}`,
      );
    }
  }

  /** Acks what the owner's commit covered; the chain after `last` stays held for the owner. */
  private settleForOwner(sessionId: string, state: SessionState<P>, last: number): void {
    state.known = undefined;
    const drained = state.queue.drain(last);
    state.queue.restore(drained.apply);
    for (const d of drained.duplicates) d.item.ack();
    this.stats.ackedForOwner += drained.duplicates.length;
    if (drained.duplicates.length > 0) state.lastCheck = this.options.now();
    for (const c of drained.conflicts) {
      this.deadLetter(
        sessionId,
        c,
        'prev_seq_conflict',
        `Aw-Prev-Seq ${c.prev} contradicts applied sequence ${last}`,
      );
    }
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
      for (const state of this.sessions.values())
        state.queue.forEach((h) => {
          h.item.working();
        });
    }
    // Expiry and shedding walk every held delivery: at most once per SWEEP_MS, not every tick.
    const sweep = now - this.lastSweep >= Math.min(SWEEP_MS, this.options.keepAliveMs);
    if (sweep) {
      this.lastSweep = now;
      this.shed();
    }
    for (const [sessionId, state] of this.sessions) {
      if (sweep) {
        const expired = state.queue.takeOlderThan(now - this.options.holdMs);
        for (const held of expired) held.item.nak(this.options.gapNakDelayMs);
        this.stats.gapNaks += expired.length;
      }
      this.reportIfStuck(sessionId, state, now);
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

  /** Naks the newest held events of the fullest sessions while more than `maxHeld` are held. */
  private shed(): void {
    let excess = this.held() - this.options.maxHeld;
    if (excess <= 0) return;
    const fullest = [...this.sessions.values()].sort((a, b) => b.queue.size - a.queue.size);
    for (const state of fullest) {
      if (excess <= 0) break;
      const all = state.queue.takeAll().sort((a, b) => a.seq - b.seq);
      const keep = Math.max(0, all.length - excess);
      state.queue.restore(all.slice(0, keep));
      for (const held of all.slice(keep)) held.item.nak(this.options.gapNakDelayMs);
      this.stats.gapNaks += all.length - keep;
      excess -= all.length - keep;
    }
  }

  /** Sessions waiting longer than `stuckAfterMs` (issue 5). */
  stuck(): StuckSession[] {
    const now = this.options.now();
    const out: StuckSession[] = [];
    for (const [sessionId, s] of this.sessions) {
      if (s.waitingSince === undefined || now - s.waitingSince < this.options.stuckAfterMs)
        continue;
      out.push({
        sessionId,
        awaitedSeq: s.queue.awaited(),
        waitingMs: now - s.waitingSince,
        blockedBy: s.blockedBy,
      });
    }
    return out;
  }

  /** Deliveries held in memory across sessions. */
  held(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.queue.size;
    return n;
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
      state = {
        queue: new SessionQueue<Delivery>(),
        known: undefined,
        running: false,
        again: false,
        waitingSince: undefined,
        lastCheck: 0,
        lastActive: this.options.now(),
        blockedBy: undefined,
        reportedStuck: false,
        noticed: 0,
      };
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
        await this.step(sessionId, state);
      } while (state.again);
    } finally {
      state.running = false;
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  private async step(sessionId: string, state: SessionState<P>): Promise<void> {
    const now = this.options.now();
    state.lastCheck = now;
    state.lastActive = now;
    let reread = false;
    for (;;) {
      if (state.known === undefined) {
        const row = await this.readRow(sessionId, state);
        if (row === 'failed') return;
        state.known = row;
      }
      const known = state.known;
      const drained = state.queue.drain(known.last);
      for (const d of drained.duplicates) d.item.ack();
      this.stats.duplicates += drained.duplicates.length;
      for (const c of drained.conflicts)
        this.deadLetter(
          sessionId,
          c,
          'prev_seq_conflict',
          `Aw-Prev-Seq ${c.prev} contradicts applied sequence ${known.last}`,
        );
      if (drained.apply.length === 0) {
        // A notice arrived before the event that follows it: the cached row is stale.
        if (state.queue.size === 0 || reread || state.noticed <= known.last) break;
        reread = true;
        state.known = undefined;
        continue;
      }
      const outcome = await this.commit(sessionId, state, known, drained.apply);
      if (outcome === 'failed') return;
    }
    if (state.queue.size === 0) {
      state.waitingSince = undefined;
      state.reportedStuck = false;
    } else {
      state.waitingSince ??= now;
    }
  }

  private async readRow(
    sessionId: string,
    state: SessionState<P>,
  ): Promise<{ projection: P | undefined; last: number } | 'failed'> {
    const started = performance.now();
    this.stats.reads += 1;
    try {
      const row = await this.options.reader.get(sessionId);
      this.stats.readMs += performance.now() - started;
      return row === undefined
        ? { projection: undefined, last: 0 }
        : { projection: row.projection as P, last: row.lastSequence };
    } catch (error) {
      this.storeFailed(sessionId, state, state.queue.takeAll(), error);
      return 'failed';
    }
  }

  /** Reduces one chain, writes it with compare-and-set, and settles its deliveries. */
  private async commit(
    sessionId: string,
    state: SessionState<P>,
    known: { projection: P | undefined; last: number },
    chain: readonly Held<Delivery>[],
  ): Promise<'ok' | 'retry' | 'failed'> {
    let projection = known.projection;
    let applied = 0;
    for (const held of chain) {
      try {
        projection = this.options.reduce(projection, held.item.event);
        applied += 1;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.deadLetter(sessionId, held, 'reducer_failed', reason);
        state.queue.restore(chain.slice(applied + 1));
        break;
      }
    }
    const done = chain.slice(0, applied);
    const last = done.at(-1)?.seq;
    if (last === undefined || projection === undefined) return 'ok';
    let written: boolean;
    const started = performance.now();
    try {
      written = await this.options.writer.write({
        sessionId,
        expected: known.last,
        projection,
        lastSequence: last,
      });
      this.stats.writeMs += performance.now() - started;
    } catch (error) {
      this.storeFailed(sessionId, state, [...done, ...state.queue.takeAll()], error);
      return 'failed';
    }
    if (!written) {
      this.stats.casConflicts += 1;
      state.queue.restore(done);
      state.known = undefined;
      return 'retry';
    }
    state.known = { projection, last };
    const now = this.options.now();
    for (const held of done) {
      held.item.ack();
      this.stats.lagMs.push(now - held.item.storedAt);
    }
    if (this.stats.lagMs.length > 100_000) this.stats.lagMs.splice(0, 50_000);
    this.stats.applied += done.length;
    this.stats.commits += 1;
    state.blockedBy = undefined;
    state.waitingSince = undefined;
    this.options.onCommitted?.(sessionId, last);
    return 'ok';
  }

  private storeFailed(
    sessionId: string,
    state: SessionState<P>,
    held: readonly Held<Delivery>[],
    error: unknown,
  ): void {
    this.stats.storeErrors += 1;
    state.known = undefined;
    const { retryable, kind } = classifyPgError(error);
    this.logger.error({ err: error, sessionId, retryable, kind }, 'projection store failed');
    if (retryable) {
      // Kept, not naked: a nak would drop the forwarded copies (their holders wait for a
      // notice) and bring the broker's copies back as redeliveries to hold and forward again.
      // The re-check retries after `recheckMs`; `holdMs` still bounds how long they stay.
      state.queue.restore(held);
      state.lastCheck = this.options.now();
      state.waitingSince ??= state.lastCheck;
      return;
    }
    for (const h of held) {
      if (!retryable && h.item.deliveryCount >= this.options.maxDeliver) {
        this.deadLetter(
          sessionId,
          h,
          `store_${kind}`,
          error instanceof Error ? error.message : String(error),
        );
      } else {
        h.item.nak(this.options.gapNakDelayMs);
      }
    }
  }

  private deadLetter(sessionId: string, held: Held<Delivery>, code: string, reason: string): void {
    this.stats.deadLettered += 1;
    held.item.deadLetter(code, reason);
    this.markBlocked(sessionId, held.seq, code);
    this.logger.error(
      { sessionId, seq: held.seq, code, reason },
      'projection event dead-lettered; the session waits at this sequence until it is repaired',
    );
  }

  private reportIfStuck(sessionId: string, state: SessionState<P>, now: number): void {
    if (state.reportedStuck || state.waitingSince === undefined) return;
    if (now - state.waitingSince < this.options.stuckAfterMs) return;
    state.reportedStuck = true;
    this.logger.warn(
      {
        sessionId,
        awaitedSeq: state.queue.awaited(),
        waitingMs: now - state.waitingSince,
        blockedBy: state.blockedBy,
      },
      'projection session stuck waiting for its predecessor',
    );
  }
}
