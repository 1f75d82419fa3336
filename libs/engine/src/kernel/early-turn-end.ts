import type { EarlyTurnEnd, ErrorPayload } from '@agentwire/contracts';

/** The error of what an interrupted turn left unfinished: its model step, its tool calls. */
export const INTERRUPTED: ErrorPayload = {
  type: 'interrupted',
  message: 'the turn was interrupted',
  code: 'interrupted' satisfies EarlyTurnEnd,
};

/**
 * Why a turn was stopped because the broker stayed away past the configured bound (issue 9):
 * the reason its abort signal carries, so the turn ends as `turn_error`
 * (`broker_unavailable`) rather than as a user's cancel.
 */
export class BrokerUnavailableError extends Error {
  override readonly name = 'BrokerUnavailableError';
  readonly stalledMs: number;

  constructor(stalledMs: number) {
    super(`the broker was unreachable for ${Math.round(stalledMs)} ms, past the outage bound`);
    this.stalledMs = stalledMs;
  }
}

/** The error of a turn ended by {@link BrokerUnavailableError}, and of what it left open. */
export function brokerUnavailablePayload(err: BrokerUnavailableError): ErrorPayload {
  return {
    type: 'broker_unavailable',
    message: err.message,
    code: 'broker_unavailable',
    retryable: true,
    attribution: { source: 'runtime', reason: 'broker_unavailable' },
  };
}

/** The error every reconciled call and turn carries (DESIGN.md flow 6). */
export const RUNTIME_LOST: ErrorPayload = {
  type: 'runtime_lost',
  message: 'the runtime that drove this turn stopped before it finished',
  code: 'runtime_lost' satisfies EarlyTurnEnd,
  retryable: false,
  attribution: { source: 'runtime', reason: 'runtime_lost' },
};
