import { HEADERS } from '@agentwire/contracts';
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';

/** Why a message was dead-lettered: a stable code and a reason naming what was wrong. */
export interface DeadLetterReason {
  /** Stable code (`malformed_json`, `invalid_payload`, `oversized`, `max_deliveries`, ...). */
  readonly code: string;
  /** Human-readable reason, naming what was wrong. */
  readonly reason: string;
}

/** Header set on a dead letter whose data was cut to fit. */
const DEAD_LETTER_TRUNCATED = 'Aw-Dlq-Truncated';

/**
 * Parks `msg` on `subject` (a `<p>.dlq.<consumer>` subject kept by the dead-letter stream)
 * with its reason in headers (`Aw-Dlq-Reason`, `Aw-Dlq-Code`, `Aw-Dlq-Subject`), the
 * original headers and the original data, cut to `maxDataBytes` when larger. The publish is
 * de-duplicated on the original stream and sequence, so a redelivery parks it once.
 */
export async function publishDeadLetter(
  js: JetStreamClient,
  subject: string,
  msg: JsMsg,
  why: DeadLetterReason,
  maxDataBytes: number,
): Promise<void> {
  const h = natsHeaders();
  for (const key of msg.headers?.keys() ?? []) {
    if (key === HEADERS.msgId) continue;
    for (const value of msg.headers?.values(key) ?? []) h.append(key, value);
  }
  h.set(HEADERS.deadLetterReason, oneLine(why.reason));
  h.set(HEADERS.deadLetterCode, why.code);
  h.set(HEADERS.deadLetterSubject, msg.subject);
  const truncated = msg.data.length > maxDataBytes;
  if (truncated) h.set(DEAD_LETTER_TRUNCATED, `${msg.data.length}`);
  const data = truncated ? msg.data.subarray(0, maxDataBytes) : msg.data;
  await js.publish(subject, data, { headers: h, msgID: `${msg.info.stream}:${msg.seq}` });
}

/** Header values must be one line; reasons are cut to 1,000 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  return flat.length > 1000 ? `${flat.slice(0, 997)}...` : flat;
}
