/**
 * Remembers which event carried each of the latest numbers of one session, to tell a
 * redelivered copy (same id) from a second event with the same number (another id: two
 * writers, which R2.3 and R13.1 forbid and the runtime's fences rule out, docs/decisions/
 * 0110). Bounded: only the latest `capacity` numbers are remembered. Pure.
 */
export class NumberWitness {
  readonly #ids = new Map<number, string>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /**
   * Notes that `id` carries `sequenceNumber`; returns the id already noted for it when that
   * is another one (the conflict), else `undefined`. A conflicting id is not noted.
   */
  see(sequenceNumber: number, id: string): string | undefined {
    const known = this.#ids.get(sequenceNumber);
    if (known !== undefined) return known === id ? undefined : known;
    this.#ids.set(sequenceNumber, id);
    if (this.#ids.size > this.#capacity) {
      const oldest = this.#ids.keys().next();
      if (oldest.done !== true) this.#ids.delete(oldest.value);
    }
    return undefined;
  }
}

/**
 * The event id a `Nats-Msg-Id` stands for: the id itself, or, for a deliberate republish
 * past the broker's de-duplication, the part before `:<attempt>` (the convention commands
 * use too). Two copies of one event compare equal; a number witness compares these.
 */
export function eventIdOfMessageId(msgId: string): string {
  const colon = msgId.indexOf(':');
  return colon < 0 ? msgId : msgId.slice(0, colon);
}
