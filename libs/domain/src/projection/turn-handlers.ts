import type { ProjectionHandlers } from './handler-table.ts';

/**
 * Turn handlers (R16.3). `turn_started` sets status running, turn count + 1, clears the
 * last error and sets the current turn; `turn_complete` sets idle and adds `tokenCount`;
 * `turn_error` sets status error and records the error. All three clear the streaming tool
 * ledger, so that evicting a sealed turn's transient events (R3.4) never changes the
 * projection; the input that started a turn leaves `pendingSteerInputs`.
 */
export const turnHandlers: ProjectionHandlers<'turn_started' | 'turn_complete' | 'turn_error'> = {
  turn_started: (p, e) => {
    const inputId = e.payload.inputId;
    const queued =
      inputId !== undefined && p.pendingSteerInputs.some((i) => i.pendingInputId === inputId);
    return {
      ...p,
      status: 'running',
      turnCount: p.turnCount + 1,
      lastError: null,
      currentTurnId: e.turnId,
      streamingToolLedger: p.streamingToolLedger.length === 0 ? p.streamingToolLedger : [],
      pendingSteerInputs: queued
        ? p.pendingSteerInputs.filter((i) => i.pendingInputId !== inputId)
        : p.pendingSteerInputs,
    };
  },
  turn_complete: (p, e) => ({
    ...p,
    status: 'idle',
    totalTokenCount: p.totalTokenCount + e.payload.tokenCount,
    currentTurnId: null,
    streamingToolLedger: p.streamingToolLedger.length === 0 ? p.streamingToolLedger : [],
  }),
  turn_error: (p, e) => ({
    ...p,
    status: 'error',
    lastError: {
      error: e.payload.error,
      turnId: e.turnId,
      turnPhase: e.payload.turnPhase,
      at: e.timestamp,
    },
    currentTurnId: null,
    streamingToolLedger: p.streamingToolLedger.length === 0 ? p.streamingToolLedger : [],
  }),
};
