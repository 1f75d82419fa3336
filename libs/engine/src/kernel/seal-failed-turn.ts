import type { ErrorPayload } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';
import { AppendError } from './append-error.ts';
import { BrokerUnavailableError, brokerUnavailablePayload } from './early-turn-end.ts';
import type { OpenTurn } from './open-turn.ts';
import { type SettleDeps, settleOpenTurn } from './settle-open-turn.ts';

/** The turn whose loop threw, and why. */
export interface FailedTurn {
  readonly turnId: string;
  readonly traceId: string;
  readonly inputId: string | undefined;
  readonly err: unknown;
  /**
   * The session's live history: a call the turn's last model step declared and no tool
   * message answers gets the error its part is written with, as hydration would read it
   * back (R10.4), so the next request is well formed.
   */
  readonly history?: ModelMessage[];
}

/** What a failed turn's `turn_error` says: the error and the phase it happened in (R5.4). */
function failedTurnEnding(err: unknown): {
  readonly error: ErrorPayload;
  readonly turnPhase: string;
} {
  if (err instanceof BrokerUnavailableError) {
    return { error: brokerUnavailablePayload(err), turnPhase: 'broker' };
  }
  if (err instanceof AppendError && err.code === 'refused') {
    return {
      error: {
        type: 'event_refused',
        message: err.message,
        code: 'event_refused',
        ...(err.eventType === undefined ? {} : { detail: err.eventType }),
        retryable: false,
        attribution: { source: 'runtime', reason: 'event_refused' },
      },
      turnPhase: err.phase,
    };
  }
  return {
    error: {
      type: 'runtime_error',
      message: err instanceof Error ? err.message : String(err),
      code: 'runtime_error',
      attribution: { source: 'runtime' },
    },
    turnPhase: 'runtime',
  };
}

/**
 * Seals a turn whose loop threw (a bus or store failure) with `turn_error`
 * (`runtime_error`; `broker_unavailable` for a turn stopped by a long broker outage;
 * `event_refused` in phase `event_store.append` for an event the broker refused for good,
 * docs/decisions/0160), so it is not left open (R1.1); what the stream shows it left open
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
  const { error, turnPhase } = failedTurnEnding(failed.err);
  const turn: OpenTurn = open?.turnId === failed.turnId ? open : unknownTurn(failed);
  const ending = { reason: 'interrupted', error, turnPhase, writes: 'best_effort' } as const;
  const sealed = await settleOpenTurn(deps, turn, ending).then(
    () => true,
    () => false,
  );
  if (sealed && failed.history !== undefined) answerOpenCalls(failed.history, error);
  return sealed;
}

/** Answers, with `error`, the calls of the history's last tool-calling step left unanswered. */
function answerOpenCalls(history: ModelMessage[], error: ErrorPayload): void {
  let at = history.length - 1;
  while (at >= 0 && history[at]?.role === 'tool') at -= 1;
  const step = history[at];
  if (step?.role !== 'assistant' || step.toolCalls === undefined) return;
  const answered = new Set(history.slice(at + 1).map((m) => m.toolCallId));
  for (const call of step.toolCalls) {
    if (answered.has(call.toolCallId)) continue;
    history.push({
      role: 'tool',
      content: `${error.code ?? error.type}: ${error.message}`,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      isError: true,
    });
  }
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
