import { HEADERS, type Names, names } from '@agentwire/contracts';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { decodeDelivery } from './decode-delivery.ts';
import type { Delivery } from './delivery.ts';
import { InstanceMembership } from './instance-membership.ts';

/** Header carrying the broker's store time (ms) on a forwarded copy, for the lag metric. */
const STORED_AT = 'Aw-Stored-At';

export interface SessionRouterOptions {
  readonly nc: NatsConnection;
  readonly prefix: string;
  /** This instance's routing id: a subject token, unique per process. */
  readonly self: string;
  /** Hands a delivery to the applier (owned, passive, or a forwarded copy). */
  readonly accept: (delivery: Delivery) => void;
  readonly heartbeatMs: number;
  /** A member not heard from for this long is considered gone (several heartbeats). */
  readonly expireMs: number;
  readonly now: () => number;
  readonly logger?: Logger;
}

const noop = () => {};

/**
 * An unsettled delivery of the shared consumer and the owner it was routed to (this
 * instance or another): forwarded again when its session changes owner.
 */
interface HeldForOwner {
  readonly delivery: Delivery;
  readonly data: Uint8Array;
  to: string;
}

/**
 * Session affinity for competing projection instances (docs/decisions/0063): the shared
 * durable consumer hands any session's events to any instance, but each session is applied
 * by one owner ({@link InstanceMembership}). An instance that receives an event of a session
 * it does not own holds the broker's message (the applier acks it on the owner's commit
 * notice, and takes over if the owner goes quiet) and forwards a copy to the owner over core
 * NATS. So a session's chain stays in one instance's memory: no row re-read per event and
 * one compare-and-set per chain, instead of one read and one write per hand-over.
 */
export class SessionRouter {
  readonly membership: InstanceMembership;
  /** Copies forwarded to other instances. */
  forwarded = 0;
  private readonly options: SessionRouterOptions;
  private readonly names: Names;
  private readonly logger: Logger;
  private readonly subs: Subscription[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Unsettled deliveries held for other owners, by session. */
  private readonly held = new Map<string, Set<HeldForOwner>>();
  private lastMembers = '';

  constructor(options: SessionRouterOptions) {
    this.options = options;
    this.names = names(options.prefix);
    this.logger = options.logger ?? noopLogger;
    this.membership = new InstanceMembership(
      options.self,
      options.expireMs,
      Math.max(1, Math.ceil(options.expireMs / options.heartbeatMs)),
    );
  }

  /** Whether this instance applies `sessionId` now (the applier's `owns`). */
  owns(sessionId: string): boolean {
    return this.membership.owner(sessionId, this.options.now()) === this.options.self;
  }

  /** Joins: listens for members and forwarded copies, and starts heartbeats. */
  start(): void {
    const { nc, self } = this.options;
    this.subs.push(
      nc.subscribe(this.names.projectionMembers, {
        callback: (_err, msg) => this.onMember(msg.string()),
      }),
      nc.subscribe(this.names.projectionForwardFilter(self), {
        callback: (_err, msg) => {
          const sid = this.names.parseProjectionForward(self, msg.subject);
          if (sid === undefined) return;
          this.onForwarded(sid, msg.data, (name) => msg.headers?.get(name) || undefined);
        },
      }),
    );
    this.beat(true);
    this.timer = setInterval(() => this.beat(true), this.options.heartbeatMs);
  }

  /**
   * Routes one delivery from the shared consumer: applied here when this instance owns the
   * session, otherwise held here and forwarded (`data` is the message body as stored). Either
   * way it is remembered until settled, so that it follows its session to a new owner.
   */
  route(delivery: Delivery, data: Uint8Array): void {
    const sid = delivery.event.sessionId;
    const owner = this.membership.owner(sid, this.options.now());
    let set = this.held.get(sid);
    if (set === undefined) {
      set = new Set();
      this.held.set(sid, set);
    }
    // A redelivery (or a second copy) of an event already forwarded to this owner: the
    // owner has it; forwarding it again only adds work while this instance is behind.
    let known = false;
    for (const other of set)
      known ||=
        other.to === owner && other.delivery.event.sequenceNumber === delivery.event.sequenceNumber;
    const entry: HeldForOwner = { delivery, data, to: owner };
    const settled = () => {
      set.delete(entry);
      if (set.size === 0 && this.held.get(sid) === set) this.held.delete(sid);
    };
    set.add(entry);
    this.options.accept({
      ...delivery,
      ack: () => {
        settled();
        delivery.ack();
      },
      nak: (delayMs) => {
        settled();
        delivery.nak(delayMs);
      },
      deadLetter: (code, reason) => {
        settled();
        delivery.deadLetter(code, reason);
      },
    });
    if (owner !== this.options.self && !known) this.forward(entry);
  }

  /**
   * Periodic: when the live members changed (one joined, left or went quiet), forwards every
   * unsettled delivery whose session moved to another owner, including those this instance
   * took as owner (`handOff` tells the applier it no longer owns them), and wakes the
   * sessions that moved here (`takeOver`), so nothing waits for the fallback re-check.
   */
  tick(takeOver: (sessionId: string) => void, handOff: (sessionId: string) => void): void {
    const members = this.membership.members(this.options.now()).join(',');
    if (members === this.lastMembers) return;
    this.logger.info({ members: members.split(',').length }, 'projection members changed');
    this.lastMembers = members;
    const self = this.options.self;
    for (const [sid, set] of this.held) {
      const owner = this.membership.owner(sid, this.options.now());
      let wasMine = false;
      for (const entry of set) {
        if (entry.to === owner) continue;
        wasMine ||= entry.to === self;
        entry.to = owner;
        if (owner !== self) this.forward(entry);
      }
      if (owner === self) takeOver(sid);
      else if (wasMine) handOff(sid);
    }
  }

  private forward(entry: HeldForOwner): void {
    const { delivery, data, to } = entry;
    const h = headers();
    h.set(HEADERS.sequence, String(delivery.event.sequenceNumber));
    h.set(HEADERS.previousDurableSequence, String(delivery.prev));
    h.set(STORED_AT, String(delivery.storedAt));
    const subject = this.names.projectionForward(to, delivery.event.sessionId);
    this.options.nc.publish(subject, data, { headers: h });
    this.forwarded += 1;
  }

  /** Leaves (SIGTERM drain): tells the others, so they take this instance's sessions at once. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.beat(false);
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
  }

  private beat(up: boolean): void {
    const body = JSON.stringify({ id: this.options.self, up });
    this.options.nc.publish(this.names.projectionMembers, body);
  }

  private onMember(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const { id, up } = (parsed ?? {}) as { id?: unknown; up?: unknown };
    if (typeof id !== 'string') return;
    if (id === this.options.self) {
      this.membership.echoed();
      return;
    }
    if (up === false) {
      this.membership.left(id);
      this.logger.info({ member: id }, 'projection member left');
      return;
    }
    if (this.membership.heard(id, this.options.now())) {
      this.logger.info({ member: id }, 'projection member joined');
      this.beat(true); // a newcomer learns about this instance without waiting a period
    }
  }

  private onForwarded(
    sessionId: string,
    data: Uint8Array,
    header: (name: string) => string | undefined,
  ): void {
    const decoded = decodeDelivery(
      { subject: this.names.eventSubject(sessionId), data, header },
      this.names,
    );
    // The forwarder decoded the same bytes; it dead-letters a refusal itself.
    if (!decoded.ok) return;
    const storedAt = Number(header(STORED_AT));
    this.options.accept({
      event: decoded.event,
      prev: decoded.prev,
      deliveryCount: 1,
      storedAt: Number.isFinite(storedAt) ? storedAt : this.options.now(),
      forwarded: true,
      ack: noop,
      nak: noop,
      working: noop,
      deadLetter: noop,
    });
  }
}
