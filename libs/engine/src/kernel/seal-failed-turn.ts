import type { ErrorPayload } from '@agentwire/contracts';
import { BrokerUnavailableError, brokerUnavailablePayload } from './early-turn-end.ts';
import type { OpenTurn } from './open-turn.ts';
import { type SettleDeps, settleOpenTurn } from './settle-open-turn.ts';

/** The turn whose loop threw, and why. */
export interface FailedTurn {
  readonly turnId: string;
  readonly traceId: string;
  readonly inputId: string;
  readonly err: unknown;
}

/**
 * Seals a turn whose loop threw (a bus or store failure) with `turn_error`
 * (`runtime_error`, or `broker_unavailable` for a turn stopped by a long broker outage), so it is not left open (R1.1); what the stream shows it left open
 * (`open`, the session's own fold of its events) is settled first, the requests as
 * `interrupted` (issue 20), with writes that may fail logged and passed over. Returns
 * whether the turn was sealed; a broken session or a failing append seals nothing.
 */
export async function sealFailedTurn(
  deps: SettleDeps,
  failed: FailedTurn,
  open: OpenTurn | undefined,
): Promise<boolean> {
  const { emitter } = deps;
  if (emitter.appender.broken !== undefined) return false;
  const brokerAway = failed.err instanceof BrokerUnavailableError;
  const error: ErrorPayload =
    failed.err instanceof BrokerUnavailableError
      ? brokerUnavailablePayload(failed.err)
      : {
          type: 'runtime_error',
          message: failed.err instanceof Error ? failed.err.message : String(failed.err),
          code: 'runtime_error',
          attribution: { source: 'runtime' },
        };
  const turn: OpenTurn = open?.turnId === failed.turnId ? open : unknownTurn(failed);
  const ending = {
    reason: 'interrupted',
    error,
    turnPhase: brokerAway ? 'broker' : 'runtime',
    writes: 'best_effort',
  } as const;
  return settleOpenTurn(deps, turn, ending).then(
    () => true,
    () => false,
  );
}

/** A turn the fold never saw start: nothing to settle but the turn itself. */
function unknownTurn(failed: FailedTurn): OpenTurn {
  return {
    turnId: failed.turnId,
    traceId: failed.traceId,
    inputId: failed.inputId,
    toolCalls: [],
    permissions: [],
    batch: undefined,
    lastMessageId: undefined,
    model: undefined,
  };
}
