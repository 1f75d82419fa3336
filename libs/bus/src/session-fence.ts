import { isTransientEventType, type Names, type SessionEvent } from '@agentwire/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import { lastMessageOn, openTurns } from './session-state.ts';

/**
 * The fences a session's single writer (R13) holds: for each subject it writes, the stream
 * sequence of the last message there. `ev` carries the authoritative fence; each open
 * turn's `tx.<turnId>` subject has its own (NATS 2.9 cannot fence a wildcard). See
 * docs/decisions/0040-publish-fencing.md.
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

  /** Records the stream sequence the broker acked for `event` (an `ok` or `duplicate`). */
  advance(event: Pick<SessionEvent, 'type' | 'turnId'>, streamSequence: number): void {
    if (!isTransientEventType(event.type) || event.turnId === null) {
      this.#ev = Math.max(this.#ev, streamSequence);
    } else {
      this.#tx.set(event.turnId, Math.max(this.#tx.get(event.turnId) ?? 0, streamSequence));
    }
  }

  /** Forgets a turn's fence after {@link purgeTurn} emptied its subject. */
  forgetTurn(turnId: string): void {
    this.#tx.delete(turnId);
  }

  /** The `ev` fence: stream sequence of the session's last non-transient message. */
  get durable(): number {
    return this.#ev;
  }
}

/**
 * Reads a session's current fences from the stream: call it right after taking the lease
 * (R13), before the first publish, and again after a `fenced` result while the lease is
 * still held (for example after the age limit expired the last `ev` message).
 */
export async function loadSessionFence(
  jsm: JetStreamManager,
  n: Names,
  sessionId: string,
): Promise<SessionFence> {
  const ev = await lastMessageOn(jsm, n.eventsStream, n.eventSubject(sessionId));
  const tx: [string, number][] = [];
  for (const turn of await openTurns(jsm, n, sessionId)) {
    const last = await lastMessageOn(jsm, n.eventsStream, turn.subject);
    if (last !== null) tx.push([turn.turnId, last.seq]);
  }
  return new SessionFence(ev?.seq ?? 0, tx);
}
