/**
 * FNV-1a with murmur3's final mix, 32 bits: a cheap, stable string hash whose low and high
 * bits both depend on every character (session ids often differ only in their last one).
 */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** When a member was last heard, by the clock and by this instance's own echoed beats. */
interface Heard {
  readonly at: number;
  readonly echoes: number;
}

/**
 * Which live projection instance applies which session (docs/decisions/0063): every
 * instance hears the others' heartbeats and places each session on the live instance with
 * the highest rendezvous weight `hash(instance/session)`. All instances that hear the same
 * members agree without talking; when a member joins or leaves only its share of sessions
 * moves. Placement is a performance hint, never a correctness guarantee: two instances that
 * briefly disagree still apply in order, because every write is a compare-and-set (flow 3).
 *
 * A member expires only when it is silent for `expireMs` by the clock *and* this instance has
 * heard at least `beatsToExpire` of its own heartbeats come back through the broker since
 * the member's last one (docs/decisions/0064): a busy instance that reads its socket late
 * sees its own beats late too, so its backlog never passes for the others' absence.
 * Pure: the clock comes from the caller.
 */
export class InstanceMembership {
  readonly self: string;
  private readonly expireMs: number;
  private readonly beatsToExpire: number;
  private readonly lastHeard = new Map<string, Heard>();
  private echoes = 0;

  /**
   * `expireMs`: a member not heard from for this long may be gone; `beatsToExpire`: and
   * only once this many of this instance's own beats were echoed since (0: the clock alone).
   */
  constructor(self: string, expireMs: number, beatsToExpire = 0) {
    this.self = self;
    this.expireMs = expireMs;
    this.beatsToExpire = beatsToExpire;
  }

  /** Records that one of this instance's own heartbeats came back through the broker. */
  echoed(): void {
    this.echoes += 1;
  }

  /** Records a heartbeat; returns true when the member was not known (or had expired). */
  heard(member: string, now: number): boolean {
    if (member === this.self) return false;
    const last = this.lastHeard.get(member);
    this.lastHeard.set(member, { at: now, echoes: this.echoes });
    return last === undefined || !this.alive(last, now);
  }

  /** Forgets a member that announced its departure (SIGTERM drain). */
  left(member: string): void {
    this.lastHeard.delete(member);
  }

  /** Live members, this instance included, sorted. */
  members(now: number): string[] {
    const live = [this.self];
    for (const [member, heard] of this.lastHeard) {
      if (this.alive(heard, now)) live.push(member);
      else this.lastHeard.delete(member);
    }
    return live.sort();
  }

  private alive(heard: Heard, now: number): boolean {
    return now - heard.at <= this.expireMs || this.echoes - heard.echoes < this.beatsToExpire;
  }

  /** The live member that applies `sessionId` (rendezvous hashing over {@link members}). */
  owner(sessionId: string, now: number): string {
    let best = this.self;
    let bestWeight = -1;
    for (const member of this.members(now)) {
      const weight = hash32(`${member}/${sessionId}`);
      if (weight > bestWeight || (weight === bestWeight && member < best)) {
        best = member;
        bestWeight = weight;
      }
    }
    return best;
  }
}
