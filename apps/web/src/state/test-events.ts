import { parseSessionEventOrThrow, type SessionEvent } from '@agentwire/contracts';

/**
 * A parsed event for the web client's unit tests.
 *
 * @internal Test helper.
 */
export function event(
  sequenceNumber: number,
  type: string,
  payload: unknown,
  turnId: string | null = 'turn_1',
): SessionEvent {
  return parseSessionEventOrThrow({
    id: `evt_${sequenceNumber}`,
    sessionId: 'ses_1',
    turnId,
    type,
    timestamp: 1_000 + sequenceNumber,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    sequenceNumber,
    payload,
  });
}
