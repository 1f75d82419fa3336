import type { DurableEvent } from '@agentwire/store';

/**
 * One decoded message of the events consumer: a durable event to apply (R6), or only the
 * number of a non-durable one, which raises its session's durable high-water mark
 * (`sessions.last_sequence`, DESIGN.md first invariant, docs/decisions/0036).
 */
export type EventItem =
  | { readonly kind: 'event'; readonly event: DurableEvent }
  | {
      readonly kind: 'mark';
      readonly sessionId: string;
      readonly sequence: number;
      /** The event id (`Nats-Msg-Id`, or the body's), when the message carries one. */
      readonly eventId?: string;
    };

/** The highest number per session among the non-durable items (`mark`s) of a batch. */
export function sessionMarks(items: readonly EventItem[]): Map<string, number> {
  const marks = new Map<string, number>();
  for (const item of items) {
    if (item.kind !== 'mark') continue;
    const seen = marks.get(item.sessionId);
    if (seen === undefined || item.sequence > seen) marks.set(item.sessionId, item.sequence);
  }
  return marks;
}
