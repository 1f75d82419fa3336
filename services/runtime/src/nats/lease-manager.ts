import { RuntimeError, type RuntimeLogger } from '@agentwire/engine';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { type OwnerLiveness, pingOwner } from './owner-liveness.ts';

/** The value kept under a session's key in the lease bucket (R13.1). */
export const LeaseValue = z.object({
  /** The owning runtime instance: a per-process id, never reused (survives identity reuse). */
  owner: z.string(),
  host: z.string(),
  pid: z.number().int(),
  acquiredAt: z.number().int(),
  renewedAt: z.number().int(),
});
export type LeaseValue = z.infer<typeof LeaseValue>;

/** What {@link LeaseManager.ensureValid} found past the local deadline. */
export type LeaseValidity = 'valid' | 'lost' | 'unknown';

/** A lease this instance holds. */
export interface HeldLease {
  readonly sessionId: string;
  readonly revision: number;
  readonly renewedAt: number;
}

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
  /**
   * How long an owner with no ping subscription must stay without one before its lease is
   * taken over: it may be reconnecting (broker restart, a cluster node lost). Default 2 s.
   */
  readonly takeoverConfirmMs?: number;
  /**
   * After this instance's own reconnect, for this long no owner is judged gone by its
   * missing subscription: everyone is reconnecting. Default a third of the TTL.
   */
  readonly reconnectGraceMs?: number;
  readonly logger: RuntimeLogger;
  readonly now?: () => number;
  /** Called when a renewal finds the lease taken or gone. */
  readonly onLost: (sessionId: string, reason: string) => void;
}

/** KV compare-and-set failure: the key's revision is not the one expected. */
const WRONG_LAST_SEQUENCE = 10071;

/**
 * Session ownership (R13.1) in the KV bucket: taken with an atomic `create`, renewed by
 * heartbeat with a revision compare-and-set, expired by the bucket's TTL when the owner
 * stops renewing (NATS 2.9 has no per-key TTL). A key whose owner answers a liveness ping,
 * or does not answer in time, belongs to a live owner: `lease_conflict` naming it. Only an
 * owner whose connection holds no ping subscription at all, twice, `takeoverConfirmMs`
 * apart, while this instance's own connection is stable, is taken over before its key
 * expires, with a compare-and-set on the revision first read (docs/decisions/0110).
 */
export class LeaseManager {
  readonly #o: LeaseManagerOptions;
  readonly #held = new Map<string, HeldLease>();
  #timer: NodeJS.Timeout | undefined;
  #reconnectedAt = Number.NEGATIVE_INFINITY;
  #renewing: Promise<void> | undefined;

  constructor(options: LeaseManagerOptions) {
    this.#o = options;
  }

  get held(): ReadonlyMap<string, HeldLease> {
    return this.#held;
  }

  /**
   * `true` while the lease is held and its local deadline (renewal + 0.8 TTL) has not
   * passed: synchronous on the hot path. Past the deadline (a paused or starved process, or
   * a broker away) it renews first: `valid` when that compare-and-set succeeded, `lost`
   * when it was refused (or the lease is not held), `unknown` when the broker could not be
   * asked (the caller waits and asks again; it must not publish meanwhile).
   */
  ensureValid(sessionId: string): true | Promise<LeaseValidity> {
    if (this.#validNow(sessionId)) return true;
    const lease = this.#held.get(sessionId);
    if (lease === undefined) return Promise.resolve('lost');
    // A concurrent heartbeat may win the compare-and-set: what counts is the lease after.
    return this.#renew(lease).then((outcome) => {
      if (this.#validNow(sessionId)) return 'valid';
      return outcome === 'unknown' && this.#held.has(sessionId) ? 'unknown' : 'lost';
    });
  }

  #validNow(sessionId: string): boolean {
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

  /**
   * Who holds the lease of `sessionId`, by one read of the key (and a liveness ping of
   * another owner): nobody, this instance, another one that is not gone (it answers pings,
   * or may still: a reconnect), or another one that is gone. A read only.
   */
  async holder(sessionId: string): Promise<'free' | 'mine' | 'live' | 'gone'> {
    if (this.#held.has(sessionId)) return 'mine';
    const entry = await this.#o.kv.get(sessionId);
    if (entry === null || entry.operation !== 'PUT') return 'free';
    const current = parseLease(entry);
    if (current === undefined) return 'gone';
    if (current.owner === this.#o.instanceId) return 'mine';
    return (await this.#liveness(current.owner)) === 'gone' ? 'gone' : 'live';
  }

  /** Takes the lease of `sessionId`; returns whether a previous (dead) owner was displaced. */
  async acquire(sessionId: string): Promise<{ readonly tookOverFrom?: string }> {
    if (this.#held.has(sessionId)) return {};
    const entry = await this.#o.kv.get(sessionId);
    const value = this.#value();
    if (entry === null || entry.operation !== 'PUT') {
      try {
        const revision = await this.#o.kv.create(sessionId, JSON.stringify(value));
        this.#hold(sessionId, revision, value.renewedAt);
        return {};
      } catch (cause) {
        throw await this.#conflictNow(sessionId, cause);
      }
    }
    const current = parseLease(entry);
    if (current?.owner === this.#o.instanceId) {
      this.#hold(sessionId, entry.revision, current.renewedAt);
      return {};
    }
    if (current !== undefined) {
      const liveness = await this.#liveness(current.owner);
      if (liveness !== 'gone') throw this.#conflict(sessionId, current, undefined, liveness);
    }
    try {
      const revision = await this.#o.kv.update(sessionId, JSON.stringify(value), entry.revision);
      this.#hold(sessionId, revision, value.renewedAt);
      this.#o.logger.warn(
        { sessionId, previousOwner: current?.owner },
        'lease taken over from an owner with no connection',
      );
      return current === undefined ? {} : { tookOverFrom: current.owner };
    } catch (cause) {
      throw await this.#conflictNow(sessionId, cause);
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

  /**
   * Renews every held lease once, concurrently (one slow round trip must not starve the
   * others under load). Only a refused compare-and-set loses a lease; a timeout or a lost
   * connection keeps it, and the local deadline guards publishing until a renewal lands.
   */
  renewAll(): Promise<void> {
    this.#renewing ??= Promise.all([...this.#held.values()].map((lease) => this.#renew(lease)))
      .then(() => undefined)
      .finally(() => {
        this.#renewing = undefined;
      });
    return this.#renewing;
  }

  /** Starts the heartbeat (every third of the TTL) and renews at once after a reconnect. */
  start(): void {
    this.#timer ??= setInterval(
      () => {
        void this.renewAll();
      },
      Math.max(100, Math.floor(this.#o.ttlMs / 3)),
    );
    this.#timer.unref();
    void this.#watchConnection();
  }

  /** Stops the heartbeat and releases every lease. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const sessionId of [...this.#held.keys()]) await this.release(sessionId);
  }

  async #watchConnection(): Promise<void> {
    for await (const status of this.#o.nc.status()) {
      if (status.type !== 'reconnect') continue;
      this.#reconnectedAt = this.#now();
      void this.renewAll();
    }
  }

  async #renew(lease: HeldLease, adopted = false): Promise<'renewed' | 'lost' | 'unknown'> {
    const value = this.#value();
    try {
      const revision = await this.#o.kv.update(
        lease.sessionId,
        JSON.stringify(value),
        lease.revision,
      );
      if (this.#held.has(lease.sessionId)) this.#hold(lease.sessionId, revision, value.renewedAt);
      return 'renewed';
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE)) {
        this.#o.logger.warn({ err, sessionId: lease.sessionId }, 'lease renewal failed; retrying');
        return 'unknown';
      }
      // A renewal whose ack was lost moved the revision: still ours if the key says so.
      const entry = await this.#o.kv.get(lease.sessionId).catch(() => null);
      const owner = entry?.operation === 'PUT' ? parseLease(entry)?.owner : undefined;
      if (entry !== null && owner === this.#o.instanceId && !adopted) {
        if (this.#held.has(lease.sessionId))
          this.#hold(lease.sessionId, entry.revision, lease.renewedAt);
        return this.#renew({ ...lease, revision: entry.revision }, true);
      }
      if (this.#held.get(lease.sessionId)?.revision !== lease.revision) return 'unknown';
      this.#held.delete(lease.sessionId);
      this.#o.logger.warn({ err, sessionId: lease.sessionId, owner }, 'lease lost');
      this.#o.onLost(lease.sessionId, err.message);
      return 'lost';
    }
  }

  /**
   * Whether the owner is gone: no ping subscription, twice, `takeoverConfirmMs` apart, and
   * this instance's own connection stable (a reconnect storm hides live owners).
   */
  async #liveness(owner: string): Promise<OwnerLiveness> {
    const ping = () => pingOwner(this.#o.nc, this.#o.pingSubject(owner));
    const first = await ping();
    if (first !== 'gone') return first;
    const grace = this.#o.reconnectGraceMs ?? this.#o.ttlMs / 3;
    if (this.#now() - this.#reconnectedAt < grace) return 'unresponsive';
    await new Promise((resolve) => setTimeout(resolve, this.#o.takeoverConfirmMs ?? 2_000));
    if (this.#now() - this.#reconnectedAt < grace) return 'unresponsive';
    return ping();
  }

  #hold(sessionId: string, revision: number, renewedAt: number): void {
    this.#held.set(sessionId, { sessionId, revision, renewedAt });
  }

  async #conflictNow(sessionId: string, cause: unknown): Promise<RuntimeError> {
    const latest = await this.#o.kv.get(sessionId).catch(() => null);
    return this.#conflict(
      sessionId,
      latest === null || latest.operation !== 'PUT' ? undefined : parseLease(latest),
      cause,
    );
  }

  #conflict(
    sessionId: string,
    current: LeaseValue | undefined,
    cause?: unknown,
    liveness?: OwnerLiveness,
  ): RuntimeError {
    const owner = current?.owner ?? 'unknown';
    return new RuntimeError(
      'lease_conflict',
      `session ${sessionId} is owned by runtime ${owner}`,
      {
        sessionId,
        owner,
        ...(current === undefined ? {} : { host: current.host, pid: current.pid }),
        ...(liveness === undefined ? {} : { liveness }),
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

/** The lease in a bucket entry; `undefined` for a value that is not one (garbage). */
function parseLease(entry: { json<T>(): T }): LeaseValue | undefined {
  let value: unknown;
  try {
    value = entry.json();
  } catch {
    return undefined;
  }
  const parsed = LeaseValue.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
