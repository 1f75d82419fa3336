import type { JsonValue, SessionEvent } from '@agentwire/contracts';

/** A tool call that was declared but never closed. */
export interface OpenToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly assistantMessageId: string | undefined;
  readonly startedAt: number | undefined;
}

/** A turn that started and was never sealed by `turn_complete` or `turn_error` (R3.4). */
export interface OpenTurn {
  readonly turnId: string;
  readonly traceId: string;
  readonly inputId: string | undefined;
  readonly toolCalls: readonly OpenToolCall[];
}

/** What a replay of a session's non-transient events says about its turns. */
export interface TurnScan {
  readonly open: OpenTurn | undefined;
  readonly lastSealedTurnId: string | undefined;
  readonly turnCount: number;
  /** Inputs admitted in the stream (`turn_steer_queued`) that never started nor left (R14.2). */
  readonly waitingInputIds: readonly string[];
  /** Inputs the stream shows started, promoted, drained or discarded. */
  readonly settledInputIds: ReadonlySet<string>;
  /** Every input the stream shows admitted or started, with the turn it started, if any. */
  readonly inputs: ReadonlyMap<string, { readonly turnId?: string | undefined }>;
}

/**
 * Folds a session's non-transient events (in order) into what crash reconciliation needs
 * (DESIGN.md flow 6): the unsealed turn with its still open tool calls, the last sealed
 * turn (whose transient events may still wait for purging) and the number of turns.
 */
export class TurnScanner {
  #open:
    | {
        turnId: string;
        traceId: string;
        inputId: string | undefined;
        calls: Map<string, OpenToolCall>;
      }
    | undefined;
  #lastSealed: string | undefined;
  #turns = 0;
  readonly #waiting = new Set<string>();
  readonly #settled = new Set<string>();
  readonly #inputs = new Map<string, { turnId?: string | undefined }>();

  #settle(inputId: string | undefined): void {
    if (inputId === undefined) return;
    this.#waiting.delete(inputId);
    this.#settled.add(inputId);
  }

  /** Feeds one event. */
  add(event: SessionEvent): void {
    switch (event.type) {
      case 'turn_steer_queued':
        if (!this.#inputs.has(event.payload.pendingInputId))
          this.#inputs.set(event.payload.pendingInputId, {});
        if (!this.#settled.has(event.payload.pendingInputId))
          this.#waiting.add(event.payload.pendingInputId);
        return;
      case 'session_input_promoted':
      case 'turn_steer_discarded':
        this.#settle(event.payload.pendingInputId);
        return;
      case 'turn_steer_drained':
        for (const id of event.payload.pendingInputIds) this.#settle(id);
        return;
      case 'turn_started':
        this.#settle(event.payload.inputId);
        if (event.payload.inputId !== undefined)
          this.#inputs.set(event.payload.inputId, { turnId: event.turnId ?? undefined });
        this.#turns += 1;
        this.#open = {
          turnId: event.turnId ?? '',
          traceId: event.traceId,
          inputId: event.payload.inputId,
          calls: new Map(),
        };
        return;
      case 'turn_complete':
      case 'turn_error':
        if (this.#open?.turnId === event.turnId) this.#open = undefined;
        if (event.turnId !== null) this.#lastSealed = event.turnId;
        return;
      case 'tool_call_scheduled':
        this.#open?.calls.set(event.payload.toolCallId, {
          toolCallId: event.payload.toolCallId,
          toolName: event.payload.toolName,
          input: event.payload.input,
          assistantMessageId: event.payload.assistantMessageId,
          startedAt: undefined,
        });
        return;
      case 'tool_call_started': {
        const call = this.#open?.calls.get(event.payload.toolCallId);
        if (call !== undefined)
          this.#open?.calls.set(call.toolCallId, { ...call, startedAt: event.payload.startedAt });
        return;
      }
      case 'tool_call_result':
      case 'tool_call_error':
        this.#open?.calls.delete(event.payload.toolCallId);
        return;
      default:
        return;
    }
  }

  /** The result so far. */
  result(): TurnScan {
    const open = this.#open;
    return {
      open:
        open === undefined
          ? undefined
          : {
              turnId: open.turnId,
              traceId: open.traceId,
              inputId: open.inputId,
              toolCalls: [...open.calls.values()],
            },
      lastSealedTurnId: this.#lastSealed,
      turnCount: this.#turns,
      waitingInputIds: [...this.#waiting],
      settledInputIds: new Set(this.#settled),
      inputs: new Map(this.#inputs),
    };
  }
}
