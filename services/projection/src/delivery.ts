import type { SessionEvent } from '@agentwire/contracts';

/**
 * One delivered, parsed event with the handles to settle it. The bus adapter builds it from
 * a JetStream message; unit tests build it by hand.
 */
export interface Delivery {
  readonly event: SessionEvent;
  /** The `Aw-Prev-Seq` header: the session's previous non-transient sequence number. */
  readonly prev: number;
  /** How many times the broker delivered it (1 the first time). */
  readonly deliveryCount: number;
  /** When the broker stored it (ms since the epoch): the start of the projection lag. */
  readonly storedAt: number;
  /**
   * A copy another instance forwarded to this one, the session's owner (docs/decisions/0063):
   * always applied here, never forwarded again; settling it is a no-op, since the
   * forwarding instance holds the broker's message and acks it on the commit notice.
   */
  readonly forwarded?: boolean;
  ack(): void;
  /** Asks for redelivery after `delayMs`. */
  nak(delayMs: number): void;
  /** Tells the broker it is still being worked on (resets its ack deadline). */
  working(): void;
  /** Parks it on the dead-letter subject with a reason, then acks it. */
  deadLetter(code: string, reason: string): void;
}
