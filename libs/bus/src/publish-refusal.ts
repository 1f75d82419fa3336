import { JetStreamApiError } from '@nats-io/jetstream';

/**
 * Why a failed publish is known not to have been stored, or undefined: the client refuses a
 * message over the server's `max_payload` before sending it (nats-core's
 * `InvalidArgumentError`), and a JetStream API error is the broker's answer that it did not
 * store it. Whatever else failed (a timeout, a lost connection) may have landed.
 */
export function refusalOf(error: unknown, json: string): string | undefined {
  if (error instanceof JetStreamApiError) {
    return `was refused by the broker: ${error.message} (${error.code})`;
  }
  if (error instanceof Error && error.name === 'InvalidArgumentError') {
    const bytes = encoder.encode(json).length;
    return /max_payload/.test(error.message)
      ? `(${bytes} bytes of JSON, plus headers) exceeds the server's max_payload: ${error.message}`
      : `cannot be sent: ${error.message}`;
  }
  return undefined;
}

const encoder = new TextEncoder();
