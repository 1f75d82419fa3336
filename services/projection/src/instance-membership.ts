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

/**
 * Which live projection instance applies which session (docs/decisions/0063): every
 * instance hears the others' heartbeats and places each session on the live instance with
 * the highest rendezvous weight `hash(instance/session)`. All instances that hear the same
 * members agree without talking; when a member joins or leaves only its share of sessions
 * moves. Placement is a performance hint, never a correctness guarantee: two instances that
 * briefly disagree still apply in order, because every write is a compare-and-set (flow 3).
 * Pure: the clock comes from the caller.
 */
export class InstanceMembership {
  readonly self: string;
  private readonly expireMs: number;
  private readonly lastHeard = new Map<string, number>();

  /** `expireMs`: a member not heard from for this long is considered gone. */
  constructor(self: string, expireMs: number) {
    this.self = self;
    this.expireMs = expireMs;
  }

  /** Records a heartbeat; returns true when the member was not known (or had expired). */
  heard(member: string, now: number): boolean {
    if (member === this.self) return false;
    const last = this.lastHeard.get(member);
    this.lastHeard.set(member, now);
    return last === undefined || now - last > this.expireMs;
  }

  /** Forgets a member that announced its departure (SIGTERM drain). */
  left(member: string): void {
    this.lastHeard.delete(member);
  }

  /** Live members, this instance included, sorted. */
  members(now: number): string[] {
    const live = [this.self];
    for (const [member, at] of this.lastHeard) {
      if (now - at <= this.expireMs) live.push(member);
      else this.lastHeard.delete(member);
    }
    return live.sort();
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
