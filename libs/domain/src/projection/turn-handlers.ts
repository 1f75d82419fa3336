import type { SessionProjection } from '@agentwire/contracts';
import type { ProjectionHandlers } from './handler-table.ts';

type TurnScoped = Pick<
  SessionProjection,
  'streamingToolLedger' | 'pendingPermissions' | 'activeToolCalls'
>;

/**
 * What a turn owns and no turn outlives: the streaming tool ledger, the permission
 * requests and the tool calls (docs/decisions/0121). The same arrays are kept when already
 * empty, so a turn boundary with nothing left copies nothing.
 */
function dropTurnScoped(p: SessionProjection): TurnScoped {
  const empty = <T>(list: T[]): T[] => (list.length === 0 ? list : []);
  return {
    streamingToolLedger: empty(p.streamingToolLedger),
    pendingPermissions: empty(p.pendingPermissions),
    activeToolCalls: empty(p.activeToolCalls),
  };
}

/**
 * Turn handlers (R16.3). `turn_started` sets status running, turn count + 1, clears the
 * last error and sets the current turn; `turn_complete` sets idle and adds `tokenCount`;
 * `turn_error` sets status error and records the error. All three drop what belongs to a
 * turn (ours, docs/decisions/0121): the streaming tool ledger, so that evicting a sealed
 * turn's transient events (R3.4) never changes the projection, and the permission requests
 * and tool calls, so that none outlives its turn even when the stream lacks the event that
 * settled it. The input that started a turn leaves `pendingSteerInputs`.
 */
export const turnHandlers: ProjectionHandlers<'turn_started' | 'turn_complete' | 'turn_error'> = {
  turn_started: (p, e) => {
    const inputId = e.payload.inputId;
    const queued =
      inputId !== undefined && p.pendingSteerInputs.some((i) => i.pendingInputId === inputId);
    return {
      ...p,
      ...dropTurnScoped(p),
      status: 'running',
      turnCount: p.turnCount + 1,
      lastError: null,
      currentTurnId: e.turnId,
      pendingSteerInputs: queued
        ? p.pendingSteerInputs.filter((i) => i.pendingInputId !== inputId)
        : p.pendingSteerInputs,
    };
  },
  turn_complete: (p, e) => ({
    ...p,
    ...dropTurnScoped(p),
    status: 'idle',
    totalTokenCount: p.totalTokenCount + e.payload.tokenCount,
    currentTurnId: null,
  }),
  turn_error: (p, e) => ({
    ...p,
    ...dropTurnScoped(p),
    status: 'error',
    lastError: {
      error: e.payload.error,
      turnId: e.turnId,
      turnPhase: e.payload.turnPhase,
      at: e.timestamp,
    },
    currentTurnId: null,
  }),
};
