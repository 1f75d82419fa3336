import { isEvictable, planResidency, type ResidentSessionFacts } from '@agentwire/domain';
import type { RuntimeClock, RuntimeLogger } from '@agentwire/engine';
import type { Subscription } from '@nats-io/transport-node';
import type { ResidencyMetrics } from '../runtime-metrics.ts';
import type { ResidentParts } from './build-resident-session.ts';
import type { LeaseManager } from './lease-manager.ts';
import type { RuntimeHostOptions } from './runtime-host-options.ts';

/** A session resident here, with its owner subscription and usage for residency (R11). */
export interface Resident extends ResidentParts {
  lastUsedAt: number;
  operations: number;
  readonly sub: Subscription;
  /** Sinks the host itself attached: subscribers are the ones beyond these (0112). */
  readonly ownSinks: number;
}

/** What the pool needs from its host. */
export interface ResidentPoolOptions {
  readonly leases: LeaseManager;
  readonly clock: RuntimeClock;
  readonly logger: RuntimeLogger;
  readonly residency: RuntimeHostOptions['residency'];
  readonly metrics?: ResidencyMetrics | undefined;
}

/**
 * The sessions resident in one runtime (R11): the resident ones, the ones leaving
 * (deactivation in flight, docs/decisions/0112), and rebalancing with the domain's rules
 * (idle timeout, then LRU above high water down to the target), re-reading each session's
 * facts right before reclaiming it (R11.2). Deactivation equals "never loaded" (R11.3):
 * the lease is given back, the record dropped; the next operation cold-recovers.
 */
export class ResidentPool {
  readonly #o: ResidentPoolOptions;
  readonly #resident = new Map<string, Resident>();
  readonly #leaving = new Map<string, Promise<void>>();
  #eligibleSince: ReadonlyMap<string, number> = new Map();
  #rebalancing: Promise<string[]> | undefined;

  constructor(options: ResidentPoolOptions) {
    this.#o = options;
  }

  get ids(): string[] {
    return [...this.#resident.keys()];
  }

  get size(): number {
    return this.#resident.size;
  }

  get(sessionId: string): Resident | undefined {
    return this.#resident.get(sessionId);
  }

  add(sessionId: string, resident: Resident): void {
    this.#resident.set(sessionId, resident);
  }

  /** The deactivation in flight of `sessionId`, if any: wait for it before reopening. */
  leaving(sessionId: string): Promise<void> | undefined {
    return this.#leaving.get(sessionId);
  }

  /** Resident, or leaving: requests for it reach this instance's owner subscription. */
  holds(sessionId: string): boolean {
    return this.#resident.has(sessionId) || this.#leaving.has(sessionId);
  }

  /** Takes every resident session out at once (shutdown), without deactivating them. */
  takeAll(): [string, Resident][] {
    const all = [...this.#resident];
    this.#resident.clear();
    return all;
  }

  /**
   * Removes a session from residency, releasing its lease unless it was lost. With `only`,
   * nothing happens unless that very resident is still the one here (a session broken and
   * already reloaded is not dropped by a late reaction to the old one). The owner
   * subscription stays until the lease is given back: an operation arriving meanwhile waits
   * for this, then reopens the session (R16.6), never `session_closed`.
   */
  async deactivate(sessionId: string, releaseLease = true, only?: ResidentParts): Promise<void> {
    const r = this.#resident.get(sessionId);
    if (r === undefined || (only !== undefined && r.appender !== only.appender)) {
      return this.#leaving.get(sessionId);
    }
    this.#resident.delete(sessionId);
    const leaving = (async () => {
      r.publisher.abandon();
      r.session.abandon();
      r.writer.close();
      if (releaseLease) await this.#o.leases.release(sessionId);
      r.sub.unsubscribe();
    })().finally(() => {
      if (this.#leaving.get(sessionId) === leaving) this.#leaving.delete(sessionId);
    });
    this.#leaving.set(sessionId, leaving);
    await leaving;
  }

  /** One rebalance at a time (R16.6): a second caller gets the one running. */
  rebalance(now: number): Promise<string[]> {
    this.#rebalancing ??= this.#rebalanceNow(now).finally(() => {
      this.#rebalancing = undefined;
    });
    return this.#rebalancing;
  }

  async #rebalanceNow(now: number): Promise<string[]> {
    const facts = [
      ...[...this.#resident].map(([sessionId, r]) => factsOf(sessionId, r)),
      ...[...this.#leaving.keys()].map((sessionId) => leavingFacts(sessionId)),
    ];
    const plan = planResidency({
      sessions: facts,
      eligibleSince: this.#eligibleSince,
      now,
      options: this.#o.residency,
    });
    this.#eligibleSince = plan.eligibleSince;
    const evicted: string[] = [];
    for (const { sessionId, reason } of plan.evictions) {
      const r = this.#resident.get(sessionId);
      if (r === undefined || !isEvictable(factsOf(sessionId, r))) continue;
      this.#o.logger.info({ sessionId, reason, counts: plan.counts }, 'session reclaimed');
      this.#o.metrics?.reclaimed(reason);
      await this.deactivate(sessionId);
      evicted.push(sessionId);
    }
    return evicted;
  }
}

function factsOf(sessionId: string, r: Resident): ResidentSessionFacts {
  return {
    sessionId,
    lastUsedAt: r.lastUsedAt,
    ...r.session.residencyFacts(),
    subscribers: r.appender.sinkCount - r.ownSinks,
    operationInProgress: r.operations > 0,
    deactivating: false,
  };
}

/** The facts of a session being deactivated: not resident any more, never picked again. */
function leavingFacts(sessionId: string): ResidentSessionFacts {
  return {
    sessionId,
    lastUsedAt: 0,
    persisted: true,
    inFlightWork: 0,
    pendingInteraction: false,
    queuedCommands: 0,
    subscribers: 0,
    operationInProgress: false,
    deactivating: true,
  };
}
