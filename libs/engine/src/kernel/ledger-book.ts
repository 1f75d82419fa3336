import type { SteerDiscardReason } from '@agentwire/contracts';
import {
  applyLedgerOperation,
  type LedgerOperation,
  type LedgerStatus,
  ledgerOperationOfDiscard,
} from '@agentwire/domain';
import { RuntimeError } from './runtime-error.ts';

/** How many inputs' statuses a session remembers (the oldest go first). */
const REMEMBERED = 4_096;

/**
 * The statuses of the inputs this session admitted, moved only by the domain's ledger
 * state machine (R14.2, `applyLedgerOperation`): the engine asks it before it emits a steer
 * event, so it never says an input moved that the ledger would not let move (a closed row
 * removed again, a promoted input discarded).
 */
export class LedgerBook {
  readonly #status = new Map<string, LedgerStatus>();

  /** An input was admitted (`turn_steer_queued`). */
  admit(inputId: string): void {
    this.#status.delete(inputId);
    this.#status.set(inputId, 'admitted');
    if (this.#status.size > REMEMBERED) {
      const oldest = this.#status.keys().next();
      if (oldest.done !== true) this.#status.delete(oldest.value);
    }
  }

  /**
   * Applies `operation` to the input's row, or throws `input_not_pending` naming its status
   * when the state machine refuses (a terminal row never changes again).
   */
  apply(inputId: string, operation: LedgerOperation): void {
    const current = this.#status.get(inputId);
    if (current === undefined) {
      throw new RuntimeError('input_not_pending', `input ${inputId} was not admitted here`, {
        inputId,
      });
    }
    const transition = applyLedgerOperation(current, operation);
    if (!transition.ok) {
      throw new RuntimeError(
        'input_not_pending',
        `input ${inputId} is already ${transition.status}; '${operation.kind}' is refused (R14.2)`,
        { inputId, status: transition.status },
      );
    }
    this.#status.set(inputId, transition.status);
  }

  /** Applies what a `turn_steer_discarded` with `reason` means for the row. */
  discard(inputId: string, reason: SteerDiscardReason): void {
    const operation = ledgerOperationOfDiscard(reason);
    if (operation !== undefined) this.apply(inputId, operation);
  }
}
