import type { EarlyTurnEnd, ErrorPayload } from '@agentwire/contracts';

/** The error of what an interrupted turn left unfinished: its model step, its tool calls. */
export const INTERRUPTED: ErrorPayload = {
  type: 'interrupted',
  message: 'the turn was interrupted',
  code: 'interrupted' satisfies EarlyTurnEnd,
};

/** The error every reconciled call and turn carries (DESIGN.md flow 6). */
export const RUNTIME_LOST: ErrorPayload = {
  type: 'runtime_lost',
  message: 'the runtime that drove this turn stopped before it finished',
  code: 'runtime_lost' satisfies EarlyTurnEnd,
  retryable: false,
  attribution: { source: 'runtime', reason: 'runtime_lost' },
};
