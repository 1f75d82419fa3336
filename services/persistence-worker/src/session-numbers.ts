import { NumberWitness } from '@agentwire/contracts';
import { type Decoded, invalid } from './decoded-message.ts';
import type { EventItem } from './event-item.ts';

/** Latest numbers remembered per session, and sessions remembered per worker. */
const NUMBERS_PER_SESSION = 256;
const SESSIONS = 4096;

/**
 * What this worker has seen of each session's numbers (the latest ones of the most recent
 * sessions): a second event with a number another event of the session had is dead-lettered
 * `sequence_conflict` (counted by the dead-letter metric), never written as the first one's
 * copy. Two writers are ruled out by the runtime's fences (docs/decisions/0110); this is the
 * alarm if that ever fails. Competing workers each see part of a session, so a conflict is
 * caught by the worker that saw both events.
 */
export class SessionNumbers {
  readonly #sessions = new Map<string, NumberWitness>();

  /** Passes a decoded item through, or turns it into a `sequence_conflict`. */
  check(decoded: Decoded<EventItem>): Decoded<EventItem> {
    if (decoded.kind !== 'apply') return decoded;
    const item = decoded.value;
    const [sessionId, sequence, id] =
      item.kind === 'event'
        ? [item.event.sessionId, item.event.sequenceNumber, item.event.id]
        : [item.sessionId, item.sequence, item.eventId];
    if (id === undefined) return decoded;
    const known = this.#witness(sessionId).see(sequence, id);
    if (known === undefined) return decoded;
    return invalid(
      'sequence_conflict',
      `event ${id} carries number ${sequence} of session ${sessionId}, which event ${known} has`,
    );
  }

  #witness(sessionId: string): NumberWitness {
    let witness = this.#sessions.get(sessionId);
    if (witness === undefined) {
      witness = new NumberWitness(NUMBERS_PER_SESSION);
      if (this.#sessions.size >= SESSIONS) {
        const oldest = this.#sessions.keys().next();
        if (oldest.done !== true) this.#sessions.delete(oldest.value);
      }
    } else {
      this.#sessions.delete(sessionId);
    }
    this.#sessions.set(sessionId, witness);
    return witness;
  }
}
