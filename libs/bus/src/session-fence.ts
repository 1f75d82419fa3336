import { isTransientEventType, type Names, type SessionEvent } from '@agentwire/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import { highestNumberOn, lastMessageOn, openTurns } from './session-state.ts';

/**
 * The fences a session's single writer (R13) holds: for each subject it writes, the stream
 * sequence of the last message there. `ev` carries the authoritative fence; each open
 * turn's `tx.<turnId>` subject has its own (NATS 2.9 cannot fence a wildcard). See
 * docs/decisions/0040-publish-fencing.md and 0110-takeover-fences-every-subject.md.
 */
export class SessionFence {
  #ev: number;
  readonly #tx = new Map<string, number>();

  constructor(ev: number, tx: Iterable<readonly [turnId: string, streamSequence: number]> = []) {
    this.#ev = ev;
    for (const [turnId, seq] of tx) this.#tx.set(turnId, seq);
  }

  /** Expected last subject sequence for publishing `event` (0 for a subject never written). */
  expectedFor(event: Pick<SessionEvent, 'type' | 'turnId'>): number {
    if (!isTransientEventType(event.type) || event.turnId === null) return this.#ev;
    return this.#tx.get(event.turnId) ?? 0;
  }

  /** Expected last subject sequence of a turn's `tx` subject (0 when never written). */
  expectedForTurn(turnId: string): number {
    return this.#tx.get(turnId) ?? 0;
  }

  /** Records the stream sequence the broker acked for `event` (an `ok` or `duplicate`). */
  advance(event: Pick<SessionEvent, 'type' | 'turnId'>, streamSequence: number): void {
    if (!isTransientEventType(event.type) || event.turnId === null) {
      this.#ev = Math.max(this.#ev, streamSequence);
    } else {
      this.advanceTurn(event.turnId, streamSequence);
    }
  }

  /** Records an ack on a turn's `tx` subject (an event or a fence marker). */
  advanceTurn(turnId: string, streamSequence: number): void {
    this.#tx.set(turnId, Math.max(this.#tx.get(turnId) ?? 0, streamSequence));
  }

  /**
   * Adopts the subject's actual last sequence after the broker showed it lower than
   * expected: messages were removed (age limit, purge), none added, since stream sequences
   * only grow (a foreign write would show a higher one).
   */
  rewind(event: Pick<SessionEvent, 'type' | 'turnId'>, actualLastSequence: number): void {
    if (!isTransientEventType(event.type) || event.turnId === null) this.#ev = actualLastSequence;
    else this.#tx.set(event.turnId, actualLastSequence);
  }

  /** Forgets a turn's fence after {@link purgeTurn} emptied its subject. */
  forgetTurn(turnId: string): void {
    this.#tx.delete(turnId);
  }

  /** The `ev` fence: stream sequence of the session's last non-transient message. */
  get durable(): number {
    return this.#ev;
  }

  /** Turns whose `tx` subject this fence tracks. */
  get turnIds(): string[] {
    return [...this.#tx.keys()];
  }
}

/** A session's end of stream, read so that its fences and its numbers agree (0110). */
export interface SessionTip {
  readonly fence: SessionFence;
  /** The highest per-session number on any of the session's subjects; 0 for none. */
  readonly lastNumber: number;
  /** The number of the last message on `ev` (the next `Aw-Prev-Seq`); 0 for none. */
  readonly lastDurableNumber: number;
}

/**
 * Reads where a session's stream ends, for a writer that is about to take the session over
 * (R13, flow 5). The order is the argument of docs/decisions/0110: the `ev` fence first,
 * then the `tx` subjects and their fences, then the numbers; so every message stored before
 * a fence was read is counted in `lastNumber`, and any message stored after it makes the
 * taker's first publish on that subject fail. A failed read throws: a takeover never
 * numbers from a partial read.
 */
export async function readSessionTip(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<SessionTip> {
  const evSubject = n.eventSubject(sessionId);
  const ev = await lastMessageOn(jsm, n.eventsStream, evSubject);
  const lastDurableNumber =
    ev === null ? 0 : await highestNumberOn(jsm, n.eventsStream, evSubject, ev);
  const tx: [string, number][] = [];
  let lastNumber = lastDurableNumber;
  for (const turn of await openTurns(jsm, n, sessionId)) {
    const last = await lastMessageOn(jsm, n.eventsStream, turn.subject);
    if (last === null) continue;
    tx.push([turn.turnId, last.seq]);
    const number = await highestNumberOn(jsm, n.eventsStream, turn.subject, last);
    lastNumber = Math.max(lastNumber, number);
  }
  return { fence: new SessionFence(ev?.seq ?? 0, tx), lastNumber, lastDurableNumber };
}
