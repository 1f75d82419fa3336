import type { JsonValue, SessionEvent } from '@agentwire/contracts';

/** A tool call that was declared but never closed. */
export interface OpenToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly assistantMessageId: string | undefined;
  readonly startedAt: number | undefined;
}

/** A permission request that no `permission_resolved` or `permission_denied` answered. */
interface OpenPermission {
  readonly requestId: string | undefined;
  readonly toolCallId: string;
  readonly toolName: string;
}

/** A tool batch whose calls were scheduled and that never completed (`tool_batch_complete`). */
interface OpenBatch {
  /** The calls scheduled so far, in order. */
  readonly toolCallIds: readonly string[];
  readonly successCount: number;
  readonly errorCount: number;
}

/** A turn that started and was never sealed by `turn_complete` or `turn_error` (R3.4). */
export interface OpenTurn {
  readonly turnId: string;
  readonly traceId: string;
  readonly inputId: string | undefined;
  readonly toolCalls: readonly OpenToolCall[];
  readonly permissions: readonly OpenPermission[];
  readonly batch: OpenBatch | undefined;
  /** The last message the stream names in this turn (the user's, then a step's). */
  readonly lastMessageId: string | undefined;
  /** Provider and model of the turn's last main-turn `model_request`. */
  readonly model: { readonly providerId: string; readonly modelId: string } | undefined;
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
  /**
   * Waiting inputs whose message the stream shows being written (`dispatch_changed`
   * `promoting`, or admitted `startNow`) and never settled: the commit may have landed
   * (docs/decisions/0237).
   */
  readonly promotingInputIds: readonly string[];
  /** The last text each input was admitted (or edited) with, by id. */
  readonly inputTexts: ReadonlyMap<string, string>;
}

interface Scanning {
  readonly turnId: string;
  readonly traceId: string;
  readonly inputId: string | undefined;
  readonly calls: Map<string, OpenToolCall>;
  /** Keyed by request id, else by tool call id (as the reducer matches them, R16.3). */
  readonly permissions: Map<string, OpenPermission>;
  batch: OpenBatch | undefined;
  lastMessageId: string | undefined;
  model: OpenTurn['model'];
}

/**
 * Folds a session's non-transient events (in order) into what crash reconciliation needs
 * (DESIGN.md flow 6): the unsealed turn with its still open tool calls, permission requests
 * and batch, the last sealed turn (whose transient events may still wait for purging) and
 * the number of turns. The runtime folds its own events the same way, so a turn whose loop
 * fails is settled by the same rule (issue 20).
 */
export class TurnScanner {
  #open: Scanning | undefined;
  #lastSealed: string | undefined;
  #turns = 0;
  readonly #waiting = new Set<string>();
  readonly #settled = new Set<string>();
  readonly #inputs = new Map<string, { turnId?: string | undefined }>();
  readonly #promoting = new Set<string>();
  readonly #texts = new Map<string, string>();

  #settle(inputId: string | undefined): void {
    if (inputId === undefined) return;
    this.#waiting.delete(inputId);
    this.#promoting.delete(inputId);
    this.#settled.add(inputId);
  }

  /** Feeds one event. */
  add(event: SessionEvent): void {
    switch (event.type) {
      case 'turn_steer_dispatch_changed':
        if (event.payload.state === 'promoting' && this.#waiting.has(event.payload.pendingInputId))
          this.#promoting.add(event.payload.pendingInputId);
        if (event.payload.state === 'queued') this.#promoting.delete(event.payload.pendingInputId);
        return;
      case 'turn_steer_queued':
        this.#texts.set(event.payload.pendingInputId, event.payload.input);
        if (!this.#inputs.has(event.payload.pendingInputId))
          this.#inputs.set(event.payload.pendingInputId, {});
        if (!this.#settled.has(event.payload.pendingInputId)) {
          this.#waiting.add(event.payload.pendingInputId);
          // An input that starts a turn at once goes straight to its message's commit: no
          // dispatch event says so (0235), so its admission does (0237).
          if (event.payload.delivery === 'startNow')
            this.#promoting.add(event.payload.pendingInputId);
        }
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
          permissions: new Map(),
          batch: undefined,
          lastMessageId: event.payload.messageId,
          model: undefined,
        };
        return;
      case 'turn_complete':
      case 'turn_error':
        if (this.#open?.turnId === event.turnId) this.#open = undefined;
        if (event.turnId !== null) this.#lastSealed = event.turnId;
        return;
      default:
        if (this.#open !== undefined) addToTurn(this.#open, event);
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
              permissions: [...open.permissions.values()],
              batch: open.batch,
              lastMessageId: open.lastMessageId,
              model: open.model,
            },
      lastSealedTurnId: this.#lastSealed,
      turnCount: this.#turns,
      waitingInputIds: [...this.#waiting],
      settledInputIds: new Set(this.#settled),
      inputs: new Map(this.#inputs),
      promotingInputIds: [...this.#promoting],
      inputTexts: new Map(this.#texts),
    };
  }
}

/** Folds one event of the open turn: its model, calls, batch and permission requests. */
function addToTurn(turn: Scanning, event: SessionEvent): void {
  switch (event.type) {
    case 'model_request':
      if ((event.payload.querySource ?? 'main_turn') === 'main_turn') {
        turn.model = { providerId: event.payload.providerId, modelId: event.payload.modelId };
      }
      return;
    case 'tool_call_scheduled': {
      const { toolCallId, assistantMessageId } = event.payload;
      turn.calls.set(toolCallId, {
        toolCallId,
        toolName: event.payload.toolName,
        input: event.payload.input,
        assistantMessageId,
        startedAt: undefined,
      });
      const batch = turn.batch ?? { toolCallIds: [], successCount: 0, errorCount: 0 };
      turn.batch = { ...batch, toolCallIds: [...batch.toolCallIds, toolCallId] };
      if (assistantMessageId !== undefined) turn.lastMessageId = assistantMessageId;
      return;
    }
    case 'tool_call_started': {
      const call = turn.calls.get(event.payload.toolCallId);
      if (call !== undefined)
        turn.calls.set(call.toolCallId, { ...call, startedAt: event.payload.startedAt });
      return;
    }
    case 'tool_call_result':
    case 'tool_call_error': {
      if (!turn.calls.delete(event.payload.toolCallId) || turn.batch === undefined) return;
      const ok = event.type === 'tool_call_result' && event.payload.result.success;
      turn.batch = {
        ...turn.batch,
        successCount: turn.batch.successCount + (ok ? 1 : 0),
        errorCount: turn.batch.errorCount + (ok ? 0 : 1),
      };
      return;
    }
    case 'tool_batch_complete':
      turn.batch = undefined;
      return;
    case 'permission_requested': {
      const { requestId, toolCallId, toolName } = event.payload;
      turn.permissions.set(requestId ?? toolCallId, { requestId, toolCallId, toolName });
      return;
    }
    case 'permission_resolved':
    case 'permission_denied': {
      const { requestId, toolCallId } = event.payload;
      if (requestId !== undefined) turn.permissions.delete(requestId);
      else
        for (const [key, p] of turn.permissions)
          if (p.toolCallId === toolCallId) turn.permissions.delete(key);
      return;
    }
    default:
      return;
  }
}
