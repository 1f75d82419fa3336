import type { SteerRejectReason } from '@agentwire/contracts';

/** How a submitted input asks to be delivered while a turn runs (R14.1). */
export type RequestedDelivery = 'queue' | 'guide';

/** What {@link decideAdmission} looks at, gathered by the session. */
export interface AdmissionFacts {
  readonly text: string;
  /** Size of the input in UTF-8 bytes. */
  readonly bytes: number;
  readonly maxBytes: number;
  readonly requestedDelivery?: RequestedDelivery | undefined;
  /** The turn the submitter believes is running (R14.4 `expected_turn_mismatch`). */
  readonly expectedTurnId?: string | undefined;
  /** The running turn, if any. */
  readonly activeTurnId?: string | undefined;
  /** True once the running turn was interrupted: it takes no more guidance. */
  readonly activeTurnStopping: boolean;
  /** Items waiting in the queue: an idle session with a queue is still busy. */
  readonly queuedCount: number;
  /** A feature runs session-level work outside a turn (a `/compact`): no turn starts now. */
  readonly sessionBusy?: boolean;
}

/** Outcome of {@link decideAdmission}. */
export type AdmissionDecision =
  | { readonly ok: true; readonly delivery: 'startNow' | 'queue' | 'guide' }
  | { readonly ok: false; readonly reason: SteerRejectReason };

/**
 * Input admission (R12.1, R14.3, R14.4): rejects empty input, input over the size limit
 * and a submission aimed at a turn that is not the running one; otherwise picks the
 * delivery. With nothing running and nothing queued the input starts a turn now (a `guide`
 * request included: it starts the turn it meant to steer, so a race with the turn's end
 * loses nothing). While a turn runs the default is `queue` (its own turn afterwards, in
 * order); `guide` is inlined into the running turn, unless that turn is stopping
 * (`turn_not_steerable`).
 */
export function decideAdmission(facts: AdmissionFacts): AdmissionDecision {
  if (facts.text.trim() === '') return { ok: false, reason: 'empty_input' };
  if (facts.bytes > facts.maxBytes) return { ok: false, reason: 'input_too_large' };
  if (facts.expectedTurnId !== undefined && facts.expectedTurnId !== facts.activeTurnId) {
    return { ok: false, reason: 'expected_turn_mismatch' };
  }
  const busy =
    facts.activeTurnId !== undefined || facts.queuedCount > 0 || facts.sessionBusy === true;
  if (!busy) return { ok: true, delivery: 'startNow' };
  if (facts.requestedDelivery === 'guide') {
    if (facts.activeTurnId === undefined || facts.activeTurnStopping) {
      return { ok: false, reason: 'turn_not_steerable' };
    }
    return { ok: true, delivery: 'guide' };
  }
  return { ok: true, delivery: 'queue' };
}

/** `inputPreview` of `turn_steer_queued` (ours: 120 characters at most). */
export function inputPreview(input: string): string {
  return input.length > 120 ? `${input.slice(0, 117)}...` : input;
}
