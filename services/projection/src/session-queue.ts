import { NumberWitness } from '@agentwire/contracts';
import { classifyDelivery } from './classify-delivery.ts';

/** One held delivery: its ordering numbers, when it arrived, and what the caller carries. */
export interface Held<T> {
  readonly seq: number;
  readonly prev: number;
  /** Milliseconds since the epoch at which it was first held (for stuck detection). */
  readonly heldSince: number;
  readonly item: T;
}

/** What {@link SessionQueue.drain} hands back. */
export interface Drained<T> {
  /** Deliveries that chain from `last`, in sequence order: apply them in this order. */
  readonly apply: readonly Held<T>[];
  /** Already applied, or a second copy of one in `apply`: ack and drop. */
  readonly duplicates: readonly Held<T>[];
  /** Deliveries whose `Aw-Prev-Seq` contradicts what is applied: dead-letter them. */
  readonly conflicts: readonly Held<T>[];
  /**
   * Another event with the number of one applied or being applied (two writers, which the
   * runtime's fences rule out, docs/decisions/0110): dead-letter them, never apply or drop.
   */
  readonly numberConflicts: readonly Held<T>[];
  /** Last sequence number after `apply`. */
  readonly last: number;
}

/** How many applied numbers a queue remembers the event ids of. */
const APPLIED_IDS = 512;

/**
 * The out-of-order buffer of one session inside one projection instance (DESIGN.md flow 3).
 * Deliveries are held by their predecessor's number; {@link drain} takes every delivery that
 * chains from the last applied number, so a burst of shuffled events is applied with one
 * write instead of one nak-with-delay round trip per gap. Pure: no clock, no I/O.
 */
export class SessionQueue<T> {
  private readonly byPrev = new Map<number, Held<T>[]>();
  private count = 0;
  /** Ids of the latest numbers handed out to apply (bounded): a copy must carry the same. */
  private readonly applied = new NumberWitness(APPLIED_IDS);
  private readonly idOf: ((item: T) => string) | undefined;

  /** With `idOf`, a second event with an applied number is a conflict, not a duplicate. */
  constructor(idOf?: (item: T) => string) {
    this.idOf = idOf;
  }

  /** Number of held deliveries (copies included). */
  get size(): number {
    return this.count;
  }

  /** True when a held delivery directly follows `seq`. */
  hasSuccessorOf(seq: number): boolean {
    return this.byPrev.has(seq);
  }

  /** Holds a delivery. */
  add(held: Held<T>): void {
    const list = this.byPrev.get(held.prev);
    if (list === undefined) this.byPrev.set(held.prev, [held]);
    else list.push(held);
    this.count += 1;
  }

  /**
   * Removes and classifies every delivery decidable against `last` (R2.3): the chain that
   * follows `last`, the duplicates and the conflicts. Deliveries waiting for a missing
   * predecessor stay held.
   */
  drain(last: number): Drained<T> {
    const apply: Held<T>[] = [];
    const duplicates: Held<T>[] = [];
    const conflicts: Held<T>[] = [];
    const numberConflicts: Held<T>[] = [];
    const settleCopy = (held: Held<T>) => {
      const id = this.idOf?.(held.item);
      if (id !== undefined && this.applied.see(held.seq, id) !== undefined) {
        numberConflicts.push(held);
      } else {
        duplicates.push(held);
      }
    };
    let current = last;
    for (;;) {
      const next = this.byPrev.get(current);
      if (next === undefined) break;
      this.byPrev.delete(current);
      this.count -= next.length;
      const [first, ...copies] = next.sort((a, b) => a.seq - b.seq);
      if (first === undefined || first.seq <= current) {
        for (const held of next) settleCopy(held);
        continue;
      }
      apply.push(first);
      const firstId = this.idOf?.(first.item);
      if (firstId !== undefined) this.applied.see(first.seq, firstId);
      for (const copy of copies) {
        // Same predecessor, different number: the chain forks, which a single writer never does.
        if (copy.seq === first.seq) settleCopy(copy);
        else conflicts.push(copy);
      }
      current = first.seq;
    }
    for (const [prev, list] of this.byPrev) {
      const keep: Held<T>[] = [];
      for (const held of list) {
        const decision = classifyDelivery(current, held.seq, held.prev);
        if (decision === 'duplicate') settleCopy(held);
        else if (decision === 'conflict') conflicts.push(held);
        else keep.push(held);
      }
      this.count -= list.length - keep.length;
      if (keep.length === 0) this.byPrev.delete(prev);
      else this.byPrev.set(prev, keep);
    }
    return { apply, duplicates, conflicts, numberConflicts, last: current };
  }

  /** Puts back deliveries taken by {@link drain} that could not be committed. */
  restore(held: readonly Held<T>[]): void {
    for (const h of held) this.add(h);
  }

  /** Removes and returns held deliveries that have waited since before `cutoff`. */
  takeOlderThan(cutoff: number): Held<T>[] {
    const taken: Held<T>[] = [];
    for (const [prev, list] of this.byPrev) {
      const keep = list.filter((h) => h.heldSince >= cutoff);
      if (keep.length === list.length) continue;
      taken.push(...list.filter((h) => h.heldSince < cutoff));
      if (keep.length === 0) this.byPrev.delete(prev);
      else this.byPrev.set(prev, keep);
    }
    this.count -= taken.length;
    return taken;
  }

  /** Calls `visit` for every held delivery (keep-alive of unacked messages). */
  forEach(visit: (held: Held<T>) => void): void {
    for (const list of this.byPrev.values()) for (const h of list) visit(h);
  }

  /** Removes and returns everything held (used by the drain on SIGTERM). */
  takeAll(): Held<T>[] {
    const all = [...this.byPrev.values()].flat();
    this.byPrev.clear();
    this.count = 0;
    return all;
  }

  /** The lowest predecessor number still awaited, or `undefined` when nothing is held. */
  awaited(): number | undefined {
    let min: number | undefined;
    for (const prev of this.byPrev.keys()) if (min === undefined || prev < min) min = prev;
    return min;
  }

  /** When the oldest held delivery arrived, or `undefined` when nothing is held. */
  oldestHeldSince(): number | undefined {
    let min: number | undefined;
    for (const list of this.byPrev.values())
      for (const h of list) if (min === undefined || h.heldSince < min) min = h.heldSince;
    return min;
  }
}
