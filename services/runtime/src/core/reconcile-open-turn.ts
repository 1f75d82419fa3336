import type { ErrorPayload } from '@agentwire/contracts';
import type { OpenTurn } from './open-turn.ts';
import type { RuntimeClock } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';
import { toolPartId } from './tool-executor.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** The error every reconciled call and turn carries (DESIGN.md flow 6). */
export const RUNTIME_LOST: ErrorPayload = {
  type: 'runtime_lost',
  message: 'the runtime that drove this turn stopped before it finished',
  code: 'runtime_lost',
  retryable: false,
  attribution: { source: 'runtime', reason: 'runtime_lost' },
};

/**
 * Crash reconciliation (ours, DESIGN.md flow 6): closes what a dead owner left open, so
 * every frontend and the next model request see a consistent transcript. Each open tool
 * call gets its part written as `error` and a `tool_call_error`; the turn ends with
 * `turn_error` (`runtime_lost`). Runs on the new owner's emitter, so numbering continues.
 */
export async function reconcileOpenTurn(
  emitter: SessionEmitter,
  writer: TranscriptWriter,
  clock: RuntimeClock,
  open: OpenTurn,
): Promise<void> {
  for (const call of open.toolCalls) {
    const now = clock.now();
    if (call.assistantMessageId !== undefined) {
      await writer.savePart(
        {
          id: toolPartId(call.assistantMessageId, call.toolCallId),
          sessionId: emitter.sessionId,
          messageId: call.assistantMessageId,
          type: 'tool',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          state: {
            status: 'error',
            input: call.input,
            error: `runtime_lost: ${RUNTIME_LOST.message}`,
            time: { start: call.startedAt ?? now, end: now },
          },
        },
        { sequence: emitter.appender.latestSequence, traceId: open.traceId },
      );
    }
    await emitter.emit('tool_call_error', open.turnId, open.traceId, {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      error: RUNTIME_LOST,
    });
  }
  await emitter.emit('turn_error', open.turnId, open.traceId, {
    error: RUNTIME_LOST,
    turnPhase: 'runtime_lost',
    ...(open.inputId === undefined ? {} : { inputId: open.inputId }),
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
