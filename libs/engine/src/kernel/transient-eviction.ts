import type { RuntimeLogger } from './ports.ts';

/**
 * How long a sealed turn's transient events stay when no next turn starts (R3.5).
 *
 * @internal Exported for its tests.
 */
export const SEALED_TURN_RETENTION_MS = 120_000;

/** Called when a turn starts with the previous sealed turn, to purge its transient events (R3.4). */
export type EvictSealedTurn = (turnId: string) => Promise<void>;

export interface TransientEvictionDeps {
  readonly sessionId: string;
  readonly logger: RuntimeLogger;
  /** Purges a sealed turn's transient events; without it nothing is evicted. */
  readonly evict?: EvictSealedTurn | undefined;
}

/**
 * The last sealed turn of a session whose transient events may still be retained: they are
 * evicted when the next turn starts (R3.4), or by the host's tick once the turn has been
 * sealed long enough (R3.5). Each sealed turn is evicted at most once.
 */
export class TransientEviction {
  readonly #d: TransientEvictionDeps;
  #turnId: string | undefined;
  #sealedAt: number | undefined;

  constructor(deps: TransientEvictionDeps, lastSealedTurnId: string | undefined, now: number) {
    this.#d = deps;
    this.#turnId = lastSealedTurnId;
    this.#sealedAt = lastSealedTurnId === undefined ? undefined : now;
  }

  /** Records that `turnId` was sealed at `now`. */
  sealed(turnId: string, now: number): void {
    this.#turnId = turnId;
    this.#sealedAt = now;
  }

  /**
   * R3.5: evicts the sealed turn once it has been sealed longer than `maxAgeMs`.
   * Returns whether it evicted.
   */
  async sweep(now: number, maxAgeMs = SEALED_TURN_RETENTION_MS): Promise<boolean> {
    if (this.#sealedAt === undefined || now - this.#sealedAt <= maxAgeMs) return false;
    return this.evictNow();
  }

  /** R3.4: evicts the last sealed turn's transient events (once). */
  async evictNow(): Promise<boolean> {
    const turnId = this.#turnId;
    if (turnId === undefined || this.#d.evict === undefined) return false;
    this.#turnId = undefined;
    this.#sealedAt = undefined;
    try {
      await this.#d.evict(turnId);
      return true;
    } catch (err) {
      this.#d.logger.warn(
        { err, sessionId: this.#d.sessionId, turnId },
        'transient eviction failed',
      );
      return false;
    }
  }
}
