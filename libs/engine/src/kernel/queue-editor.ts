import type { ActionDispatch } from './action-dispatch.ts';
import type { InputFile } from './feature.ts';
import type { InputQueue, PendingInput } from './input-queue.ts';
import type { LedgerBook } from './ledger-book.ts';
import type { IdSource } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { InputSettlement } from './submission.ts';

/** What {@link QueueEditor} edits, and how it tells the rest of the session. */
export interface QueueEditorDeps {
  readonly queue: InputQueue;
  readonly actions: ActionDispatch;
  readonly ledger: LedgerBook;
  readonly emitter: SessionEmitter;
  readonly ids: IdSource;
  /** Inputs larger than this (UTF-8 bytes) are refused, as a submission would be. */
  readonly maxInputBytes?: number | undefined;
  /** Tells a waiting input's submitter where it ended. */
  readonly settle: (inputId: string, settlement: InputSettlement) => void;
  /** Emits `turn_steer_queued` for an input (an edit is the admission again, 0222). */
  readonly emitQueued: (
    item: PendingInput,
    delivery: 'queue' | 'guide',
    queueLength: number,
  ) => Promise<unknown>;
}

/**
 * Editing the queue from any client (issue 11 item 6, R10.3, docs/decisions/0221, 0222):
 * remove, reorder, edit, move and clear what waits. Each consults the queue as it is now:
 * an input that left is `input_not_pending` (naming its lifecycle state), and removing one
 * that is not queued any more is `illegal_transition` (0235).
 */
export class QueueEditor {
  readonly #d: QueueEditorDeps;

  constructor(deps: QueueEditorDeps) {
    this.#d = deps;
  }

  /** A user removes a waiting input: `turn_steer_discarded` (`user_removed`, R14.2 cancelled). */
  async remove(inputId: string): Promise<void> {
    if (!this.#d.queue.has(inputId)) {
      // A known action that left the queue: its lifecycle refuses (`illegal_transition`).
      this.#d.actions.get(inputId)?.remove();
      throw new RuntimeError('input_not_pending', `input ${inputId} is not waiting`, { inputId });
    }
    this.#d.actions.get(inputId)?.remove();
    const item = this.#d.queue.remove(inputId);
    if (item === undefined) throw new Error(`input ${inputId} left the queue`);
    this.#d.ledger.apply(inputId, { kind: 'cancel' });
    this.#d.settle(inputId, { kind: 'discarded', reason: 'user_removed' });
    await this.#d.emitter.emit('turn_steer_discarded', null, item.traceId, {
      pendingInputId: inputId,
      reason: 'user_removed',
    });
    // The control event of a cancellation (issue 11 item 4, 0233).
    await this.#d.emitter.emit('cancel', null, item.traceId, { inputId, reason: 'user_removed' });
  }

  /**
   * Moves the listed waiting inputs to the front, in that order (the others keep theirs),
   * and emits `turn_steer_reordered` with the whole new order (R14.4). Returns it.
   */
  async reorder(orderedInputIds: readonly string[]): Promise<readonly string[]> {
    const result = this.#d.queue.reorder(orderedInputIds);
    if (!result.ok) {
      throw new RuntimeError('input_not_pending', `input ${result.inputId}: ${result.reason}`, {
        inputId: result.inputId,
        reason: result.reason,
      });
    }
    for (const inputId of orderedInputIds) this.#d.ledger.apply(inputId, { kind: 'reorder' });
    await this.#d.emitter.emit('turn_steer_reordered', null, this.#d.ids.newTraceId(), {
      orderedPendingInputIds: [...result.order],
    });
    return result.order;
  }

  /**
   * Edits a waiting input in place (docs/decisions/0222): same id, position and delivery,
   * new text and files. On the wire it is `turn_steer_queued` again with the same pending
   * input id, which the projection and the ledger take as "replaced in place" (R16.4: only
   * while admitted). An input that left is `input_not_pending` (R10.3); an empty or
   * oversized text is refused as a submission would be.
   */
  async edit(inputId: string, input: string, files: readonly InputFile[]): Promise<void> {
    this.#assertWaiting(inputId);
    const bytes = new TextEncoder().encode(input).length;
    if (input.trim() === '') {
      throw new RuntimeError('empty_input', 'an edited input needs some text', { inputId });
    }
    const limit = this.#d.maxInputBytes ?? Number.POSITIVE_INFINITY;
    if (bytes > limit) {
      throw new RuntimeError('prompt_too_large', `the edited input holds ${bytes} bytes`, {
        inputId,
        limit,
      });
    }
    this.#d.ledger.apply(inputId, { kind: 'edit' });
    const edited = this.#d.queue.edit(inputId, input, files);
    if (edited !== undefined) await this.#d.emitQueued(edited, edited.delivery, this.#d.queue.size);
  }

  /**
   * Moves a waiting input to `position` (0 = next), the others keeping their order, and
   * emits `turn_steer_reordered` with the whole new order (R14.4). Consults the queue as it
   * is now (R10.3): an input that already left is `input_not_pending`.
   */
  async move(inputId: string, position: number): Promise<readonly string[]> {
    this.#assertWaiting(inputId);
    const size = this.#d.queue.size;
    if (position >= size) {
      throw new RuntimeError(
        'position_out_of_range',
        `position ${position} is past the last of ${size} waiting inputs (0-based)`,
        { position, size },
      );
    }
    this.#d.ledger.apply(inputId, { kind: 'reorder' });
    const order = this.#d.queue.move(inputId, position) ?? [];
    await this.#d.emitter.emit('turn_steer_reordered', null, this.#d.ids.newTraceId(), {
      orderedPendingInputIds: [...order],
    });
    return order;
  }

  /**
   * A user clears the queue: every waiting input leaves (`turn_steer_discarded`
   * `user_cleared`, R14.2 cancelled). An empty queue is a no-op. Returns the ids, in order.
   */
  async clear(): Promise<readonly string[]> {
    const items = this.#d.queue.takeAll();
    for (const item of items) {
      this.#d.actions.get(item.inputId)?.remove();
      this.#d.ledger.discard(item.inputId, 'user_cleared');
      this.#d.settle(item.inputId, { kind: 'discarded', reason: 'user_cleared' });
    }
    for (const item of items) {
      await this.#d.emitter.emit('turn_steer_discarded', null, item.traceId, {
        pendingInputId: item.inputId,
        reason: 'user_cleared',
      });
    }
    return items.map((i) => i.inputId);
  }

  #assertWaiting(inputId: string): void {
    if (this.#d.queue.has(inputId)) return;
    const state = this.#d.actions.get(inputId)?.state;
    throw new RuntimeError(
      'input_not_pending',
      state === undefined ? `input ${inputId} is not waiting` : `input ${inputId} is ${state}`,
      { inputId, ...(state === undefined ? {} : { state }) },
    );
  }
}
