import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import type { RuntimeLogger } from '../core/ports.ts';
import { RuntimeError } from '../core/runtime-error.ts';

/** The value kept under a session's key in the lease bucket (R13.1). */
export const LeaseValue = z.object({
  /** The owning runtime instance: a per-process id, never reused (survives identity reuse). */
  owner: z.string(),
  host: z.string(),
  pid: z.number().int(),
  acquiredAt: z.number().int(),
  renewedAt: z.number().int(),
});
/** The value of a lease. */
export type LeaseValue = z.infer<typeof LeaseValue>;

/** A lease this instance holds. */
export interface HeldLease {
  readonly sessionId: string;
  readonly revision: number;
  readonly renewedAt: number;
}

/** Options of {@link LeaseManager}. */
export interface LeaseManagerOptions {
  readonly kv: KV;
  readonly nc: NatsConnection;
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** The bucket's TTL; renewal runs every third of it. */
  readonly ttlMs: number;
  /** Subject on which an instance answers liveness pings. */
  readonly pingSubject: (instanceId: string) => string;
  readonly logger: RuntimeLogger;
  readonly now?: () => number;
  /** Called when a renewal finds the lease taken or gone. */
  readonly onLost: (sessionId: string, reason: string) => void;
}

/**
 * Session ownership (R13.1) in the KV bucket: taken with an atomic `create`, renewed by
 * heartbeat with a revision compare-and-set, expired by the bucket's TTL when the owner
 * dies (NATS 2.9 has no per-key TTL). A key held by an instance that does not answer a
 * liveness ping is taken over with a compare-and-set on the revision read, so a dead owner
 * costs one ping, not a TTL. A live owner makes acquisition fail with `lease_conflict`
 * naming it.
 */
export class LeaseManager {
  readonly #o: LeaseManagerOptions;
  readonly #held = new Map<string, HeldLease>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: LeaseManagerOptions) {
    this.#o = options;
  }

  /** Leases currently held. */
  get held(): ReadonlyMap<string, HeldLease> {
    return this.#held;
  }

  /** True while the lease is held and its local deadline (renewal + TTL - margin) has not passed. */
  isValid(sessionId: string): boolean {
    const lease = this.#held.get(sessionId);
    return lease !== undefined && this.#now() < lease.renewedAt + this.#o.ttlMs * 0.8;
  }

  /** Re-reads the bucket: true only if the key still holds this instance's revision. */
  async verify(sessionId: string): Promise<boolean> {
    const lease = this.#held.get(sessionId);
    if (lease === undefined) return false;
    const entry = await this.#o.kv.get(sessionId);
    return entry !== null && entry.operation === 'PUT' && entry.revision === lease.revision;
  }

  /**
   * True when the bucket holds a lease on `sessionId` (a `PUT`, whoever owns it): an opened
   * session that may not have said anything yet. A read only; it never writes the key.
   */
  async isTaken(sessionId: string): Promise<boolean> {
    if (this.#held.has(sessionId)) return true;
    const entry = await this.#o.kv.get(sessionId);
    return entry !== null && entry.operation === 'PUT';
  }

  /** Takes the lease of `sessionId`; returns whether a previous (dead) owner was displaced. */
  async acquire(sessionId: string): Promise<{ readonly tookOverFrom?: string }> {
    if (this.#held.has(sessionId)) return {};
    const entry = await this.#o.kv.get(sessionId);
    const value = this.#value();
    if (entry === null || entry.operation !== 'PUT') {
      try {
        const revision = await this.#o.kv.create(sessionId, JSON.stringify(value));
        this.#held.set(sessionId, { sessionId, revision, renewedAt: value.renewedAt });
        return {};
      } catch (cause) {
        const current = await this.#o.kv.get(sessionId);
        throw this.#conflict(
          sessionId,
          current === null ? undefined : parseLease(current.json()),
          cause,
        );
      }
    }
    const current = parseLease(entry.json());
    if (current?.owner === this.#o.instanceId) {
      this.#held.set(sessionId, {
        sessionId,
        revision: entry.revision,
        renewedAt: current.renewedAt,
      });
      return {};
    }
    if (current !== undefined && (await this.#isAlive(current.owner)))
      throw this.#conflict(sessionId, current);
    try {
      const revision = await this.#o.kv.update(sessionId, JSON.stringify(value), entry.revision);
      this.#held.set(sessionId, { sessionId, revision, renewedAt: value.renewedAt });
      return current === undefined ? {} : { tookOverFrom: current.owner };
    } catch (cause) {
      const latest = await this.#o.kv.get(sessionId);
      throw this.#conflict(
        sessionId,
        latest === null ? undefined : parseLease(latest.json()),
        cause,
      );
    }
  }

  /** Releases a held lease (compare-and-set on its revision, so a lost lease is left alone). */
  async release(sessionId: string): Promise<void> {
    const lease = this.#held.get(sessionId);
    this.#held.delete(sessionId);
    if (lease === undefined) return;
    await this.#o.kv.delete(sessionId, { previousSeq: lease.revision }).catch((err: unknown) => {
      this.#o.logger.warn({ err, sessionId }, 'lease release failed (taken over or expired)');
    });
  }

  /** Renews every held lease once; a failed compare-and-set reports the lease lost. */
  async renewAll(): Promise<void> {
    for (const lease of [...this.#held.values()]) {
      const value = this.#value();
      try {
        const revision = await this.#o.kv.update(
          lease.sessionId,
          JSON.stringify(value),
          lease.revision,
        );
        if (this.#held.has(lease.sessionId)) {
          this.#held.set(lease.sessionId, {
            sessionId: lease.sessionId,
            revision,
            renewedAt: value.renewedAt,
          });
        }
      } catch (err) {
        this.#held.delete(lease.sessionId);
        this.#o.logger.warn({ err, sessionId: lease.sessionId }, 'lease lost');
        this.#o.onLost(lease.sessionId, err instanceof Error ? err.message : String(err));
      }
    }
  }

  /** Starts the heartbeat (every third of the TTL). */
  start(): void {
    this.#timer ??= setInterval(
      () => {
        void this.renewAll();
      },
      Math.max(100, Math.floor(this.#o.ttlMs / 3)),
    );
    this.#timer.unref();
  }

  /** Stops the heartbeat and releases every lease. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const sessionId of [...this.#held.keys()]) await this.release(sessionId);
  }

  async #isAlive(owner: string): Promise<boolean> {
    try {
      await this.#o.nc.request(this.#o.pingSubject(owner), '', { timeout: 500 });
      return true;
    } catch {
      return false;
    }
  }

  #conflict(sessionId: string, current: LeaseValue | undefined, cause?: unknown): RuntimeError {
    const owner = current?.owner ?? 'unknown';
    return new RuntimeError(
      'lease_conflict',
      `session ${sessionId} is owned by runtime ${owner}`,
      {
        sessionId,
        owner,
        ...(current === undefined ? {} : { host: current.host, pid: current.pid }),
      },
      { cause },
    );
  }

  #value(): LeaseValue {
    const now = this.#now();
    return {
      owner: this.#o.instanceId,
      host: this.#o.host,
      pid: this.#o.pid,
      acquiredAt: now,
      renewedAt: now,
    };
  }

  #now(): number {
    return this.#o.now?.() ?? Date.now();
  }
}

function parseLease(value: unknown): LeaseValue | undefined {
  const parsed = LeaseValue.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
