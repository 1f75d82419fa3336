import type { InputFile } from './feature.ts';

/** One accepted input waiting in the session (R14.3: the queue or a guided row). */
export interface PendingInput {
  readonly inputId: string;
  readonly input: string;
  /** The files its `@file` references named (R7.3). */
  readonly files: readonly InputFile[];
  delivery: 'queue' | 'guide';
  /** The turn that was running when it was admitted. */
  readonly targetTurnId: string | null;
  readonly traceId: string;
  /** A session-level command queued as an action (`/compact`, 0238): runs, not prompts. */
  readonly command?: SessionCommandAction | undefined;
}

/** A session-level command and its arguments, queued to run at the turn boundary. */
export interface SessionCommandAction {
  readonly name: string;
  readonly args: string;
}

/** Outcome of {@link InputQueue.reorder}. */
export type ReorderResult =
  | { readonly ok: true; readonly order: readonly string[] }
  | {
      readonly ok: false;
      readonly reason: 'unknown_input' | 'duplicate_input';
      readonly inputId: string;
    };

/**
 * The session's admitted inputs that are neither running nor in the transcript yet
 * (R14.2 `admitted`, R14.3). `queue` items start their own turn, one after another, in
 * order; `guide` items are taken together at the running turn's next model step boundary.
 * Every operation is synchronous, so an input is always in exactly one place: here, or
 * with the code that took it out.
 */
export class InputQueue {
  readonly #items: PendingInput[] = [];

  /** Number of waiting inputs (queued and guided). */
  get size(): number {
    return this.#items.length;
  }

  /** Number of inputs that will start their own turn. */
  get queuedCount(): number {
    return this.#items.filter((i) => i.delivery === 'queue').length;
  }

  /** Whether a guided input waits for the next step boundary. */
  get hasGuided(): boolean {
    return this.#items.some((i) => i.delivery === 'guide');
  }

  /** The ids in their current order. */
  ids(): string[] {
    return this.#items.map((i) => i.inputId);
  }

  /** Whether `inputId` waits here. */
  has(inputId: string): boolean {
    return this.#items.some((i) => i.inputId === inputId);
  }

  /** Appends an admitted input. */
  add(item: PendingInput): void {
    this.#items.push(item);
  }

  /**
   * Replaces a waiting input's text and files in place (an edit: same id, same position,
   * same delivery). Returns the edited input, or undefined when it is not waiting.
   */
  edit(inputId: string, input: string, files: readonly InputFile[]): PendingInput | undefined {
    const i = this.#items.findIndex((item) => item.inputId === inputId);
    const item = this.#items[i];
    if (item === undefined) return undefined;
    // The new text is a prompt: an edited command action becomes one (0238).
    const edited: PendingInput = { ...item, input, files, command: undefined };
    this.#items[i] = edited;
    return edited;
  }

  /** Removes and returns one input (a user removal, R14.2 `cancelled`). */
  remove(inputId: string): PendingInput | undefined {
    const i = this.#items.findIndex((item) => item.inputId === inputId);
    return i < 0 ? undefined : this.#items.splice(i, 1)[0];
  }

  /** The guided inputs, in order, left in place. */
  guided(): PendingInput[] {
    return this.#items.filter((i) => i.delivery === 'guide');
  }

  /**
   * Takes the guided inputs, in order (drained into the running turn): all of them, or the
   * first `limit` (steering mode `one_at_a_time`, docs/decisions/0236).
   */
  takeGuided(limit = Number.POSITIVE_INFINITY): PendingInput[] {
    const taken = this.#items.filter((i) => i.delivery === 'guide').slice(0, limit);
    this.#remove(taken);
    return taken;
  }

  /**
   * Takes the first `queue` input and every `queue` input right after it: the consecutive
   * followUp actions committed as one batch (followUp mode `all`, 0236).
   */
  takeQueuedRun(): PendingInput[] {
    const start = this.#items.findIndex((item) => item.delivery === 'queue');
    if (start < 0) return [];
    // A command action is an action of its own, never part of a batch (0238).
    if (this.#items[start]?.command !== undefined) return this.#items.splice(start, 1);
    let end = start;
    while (this.#items[end]?.delivery === 'queue' && this.#items[end]?.command === undefined)
      end += 1;
    return this.#items.splice(start, end - start);
  }

  /** Puts inputs back at the head, in order (a batch whose turn never reached them). */
  putBack(items: readonly PendingInput[]): void {
    this.#items.unshift(...items);
  }

  /** Takes the first `queue` input (it starts the next turn). */
  takeNextQueued(): PendingInput | undefined {
    const i = this.#items.findIndex((item) => item.delivery === 'queue');
    return i < 0 ? undefined : this.#items.splice(i, 1)[0];
  }

  /** Takes everything (the session closes). */
  takeAll(): PendingInput[] {
    return this.#items.splice(0);
  }

  /**
   * The listed ids move to the front in the given order, the others keep their order
   * after them (the projection's rule for `turn_steer_reordered`, R10.3).
   */
  reorder(orderedIds: readonly string[]): ReorderResult {
    const seen = new Set<string>();
    for (const id of orderedIds) {
      if (seen.has(id)) return { ok: false, reason: 'duplicate_input', inputId: id };
      if (!this.has(id)) return { ok: false, reason: 'unknown_input', inputId: id };
      seen.add(id);
    }
    const front = orderedIds.map((id) =>
      this.#items.find((i) => i.inputId === id),
    ) as PendingInput[];
    const rest = this.#items.filter((i) => !seen.has(i.inputId));
    this.#items.splice(0, this.#items.length, ...front, ...rest);
    return { ok: true, order: this.ids() };
  }

  /**
   * Moves a waiting input to `position` among all waiting inputs (0 = first), the others
   * keeping their order. Undefined when it is not waiting; the new order otherwise.
   */
  move(inputId: string, position: number): readonly string[] | undefined {
    const at = this.#items.findIndex((i) => i.inputId === inputId);
    if (at < 0) return undefined;
    const [item] = this.#items.splice(at, 1);
    if (item !== undefined) this.#items.splice(position, 0, item);
    return this.ids();
  }

  #remove(items: readonly PendingInput[]): void {
    for (const item of items) {
      const i = this.#items.indexOf(item);
      if (i >= 0) this.#items.splice(i, 1);
    }
  }
}
