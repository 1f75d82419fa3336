import { RUNTIME_LOST } from './early-turn-end.ts';
import type { OpenTurn } from './open-turn.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { type SettleDeps, settleOpenTurn } from './settle-open-turn.ts';

/**
 * Crash reconciliation (ours, DESIGN.md flow 6): closes what a dead owner left open, so
 * every frontend and the next model request see a consistent transcript: its requests are
 * denied (`runtime_lost`), its calls fail, its batch completes and the turn ends with
 * `turn_error` (`runtime_lost`), all by {@link settleOpenTurn}. A failing write throws, so
 * the session does not become resident half reconciled; the next load settles what is
 * still open, since the scan reads the stream.
 */
export async function reconcileOpenTurn(deps: SettleDeps, open: OpenTurn): Promise<void> {
  await settleOpenTurn(deps, open, {
    reason: 'runtime_lost',
    error: RUNTIME_LOST,
    turnPhase: 'runtime_lost',
    writes: 'required',
  });
}

/**
 * R14.2 and DESIGN.md flow 6: on resume every input left `admitted` becomes
 * `discarded(session_resumed)` and is never re-run by itself. Emits one
 * `turn_steer_discarded` per input; the persistence worker closes the ledger row from it.
 */
export async function discardLeftoverInputs(
  emitter: SessionEmitter,
  traceId: string,
  inputIds: readonly string[],
): Promise<void> {
  for (const pendingInputId of inputIds) {
    await emitter.emit('turn_steer_discarded', null, traceId, {
      pendingInputId,
      reason: 'session_resumed',
    });
  }
}
