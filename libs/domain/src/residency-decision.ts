import type { ResidencyOptions } from './residency-options.ts';

/** What the pool knows about one resident session, re-read before every decision (R11.2). */
export interface ResidentSessionFacts {
  readonly sessionId: string;
  /** When an operation last touched the session (epoch ms), for LRU order. */
  readonly lastUsedAt: number;
  readonly persisted: boolean;
  /** In-flight work, detached promises included (R11.4). */
  readonly inFlightWork: number;
  readonly pendingInteraction: boolean;
  readonly queuedCommands: number;
  readonly subscribers: number;
  readonly operationInProgress: boolean;
  readonly deactivating: boolean;
}

/** Why a session is evicted (R16.6). */
export type EvictionReason = 'idle_timeout' | 'high_water_lru';

/** One planned eviction. */
interface PlannedEviction {
  readonly sessionId: string;
  readonly reason: EvictionReason;
}

/** Input of {@link planResidency}. */
export interface ResidencyInput {
  readonly sessions: readonly ResidentSessionFacts[];
  /** When each session was first seen eligible (epoch ms); the previous plan's output. */
  readonly eligibleSince: ReadonlyMap<string, number>;
  readonly now: number;
  readonly options: ResidencyOptions;
}

/** A residency decision, recorded with its reasons and counts (R16.6). */
export interface ResidencyPlan {
  /** In order; the pool re-reads facts with {@link isEvictable} before each one. */
  readonly evictions: readonly PlannedEviction[];
  /** Stamps to keep for the next plan: eligible sessions only. */
  readonly eligibleSince: ReadonlyMap<string, number>;
  readonly counts: {
    readonly resident: number;
    readonly eligible: number;
    readonly idleTimeout: number;
    readonly highWaterLru: number;
  };
}

/**
 * A session may be deactivated only if it is persisted, has no in-flight work, no pending
 * interaction, no queued command, no subscriber, no operation in progress and is not
 * already being deactivated (R11.2, R16.6).
 */
export function isEvictable(facts: ResidentSessionFacts): boolean {
  return (
    facts.persisted &&
    facts.inFlightWork === 0 &&
    !facts.pendingInteraction &&
    facts.queuedCommands === 0 &&
    facts.subscribers === 0 &&
    !facts.operationInProgress &&
    !facts.deactivating
  );
}

/**
 * Plans one rebalance (R11.1, R16.6). A session first seen eligible is stamped with `now`;
 * one that stops being eligible loses its stamp. The idle phase evicts sessions eligible for
 * at least the idle timeout, oldest stamp first. Then, only while more than `highWater`
 * sessions remain, the LRU phase evicts eligible sessions, least recently used first, down
 * to `target`. Sessions already deactivating do not count as resident.
 */
export function planResidency(input: ResidencyInput): ResidencyPlan {
  const { now, options } = input;
  const resident = input.sessions.filter((s) => !s.deactivating);
  const eligible = resident.filter(isEvictable);
  const stamps = new Map<string, number>();
  for (const s of eligible) stamps.set(s.sessionId, input.eligibleSince.get(s.sessionId) ?? now);

  const stampOf = (s: ResidentSessionFacts) => stamps.get(s.sessionId) ?? now;
  const idle = eligible
    .filter((s) => now - stampOf(s) >= options.idleTimeoutMs)
    .sort((a, b) => stampOf(a) - stampOf(b) || a.lastUsedAt - b.lastUsedAt);
  const evictions: PlannedEviction[] = idle.map((s) => ({
    sessionId: s.sessionId,
    reason: 'idle_timeout',
  }));

  let remaining = resident.length - evictions.length;
  let lru = 0;
  if (remaining > options.highWater) {
    const gone = new Set(evictions.map((e) => e.sessionId));
    const candidates = eligible
      .filter((s) => !gone.has(s.sessionId))
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const s of candidates) {
      if (remaining <= options.target) break;
      evictions.push({ sessionId: s.sessionId, reason: 'high_water_lru' });
      remaining--;
      lru++;
    }
  }
  for (const e of evictions) stamps.delete(e.sessionId);
  return {
    evictions,
    eligibleSince: stamps,
    counts: {
      resident: resident.length,
      eligible: eligible.length,
      idleTimeout: idle.length,
      highWaterLru: lru,
    },
  };
}
