/**
 * Room left under the server's `max_payload` for a message's headers (fence, trace, ids).
 *
 * @internal Exported for its tests.
 */
export const HEADER_ROOM_BYTES = 16 * 1024;

/**
 * `AW_MAX_EVENT_BYTES` does not fit under the broker's `max_payload`.
 *
 * @internal Exported for its tests.
 */
export class EventBoundError extends Error {
  override readonly name = 'EventBoundError';
  readonly code = 'event_bound_too_large';
}

/**
 * The bound on every message body the runtime publishes (docs/decisions/0162): the
 * configured `AW_MAX_EVENT_BYTES`, checked against the `max_payload` the server announced
 * in its INFO, less {@link HEADER_ROOM_BYTES} for the headers. A bound that does not fit
 * stops the runtime at start: every large event would otherwise be refused.
 */
export function eventBound(configured: number, maxPayload: number | undefined): number {
  if (maxPayload === undefined) return configured;
  const room = maxPayload - HEADER_ROOM_BYTES;
  if (configured > room) {
    throw new EventBoundError(
      `AW_MAX_EVENT_BYTES (${configured}) must stay ${HEADER_ROOM_BYTES} bytes below the NATS server's max_payload (${maxPayload}): at most ${room}`,
    );
  }
  return configured;
}
