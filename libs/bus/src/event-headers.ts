import { HEADERS, type SessionEvent } from '@agentwire/contracts';
import { injectTraceContext } from '@agentwire/telemetry';
import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';
import { context } from '@opentelemetry/api';

/**
 * Headers of a published event (DESIGN.md "Subjects"): `Nats-Msg-Id` (the event id, for
 * broker de-duplication), `Aw-Seq` (R2.2), `Aw-Prev-Seq`, `Aw-Type` and W3C `traceparent`
 * of `traceContext` (the active context by default).
 */
export function eventHeaders(
  event: SessionEvent,
  previousDurableSequence: number,
  traceContext: Context = context.active(),
): MsgHdrs {
  const h = natsHeaders();
  h.set(HEADERS.msgId, event.id);
  h.set(HEADERS.sequence, String(event.sequenceNumber));
  h.set(HEADERS.previousDurableSequence, String(previousDurableSequence));
  h.set(HEADERS.eventType, event.type);
  injectTraceContext(h, traceContext);
  return h;
}

/** Reads `Aw-Seq` from message headers; `undefined` when absent or not a positive integer. */
export function headerSequence(h: MsgHdrs | undefined): number | undefined {
  const raw = h?.get(HEADERS.sequence);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
