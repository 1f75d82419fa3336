import { contextTokensOf, type ModelCompletePayload } from '@agentwire/contracts';
import type { ProjectionHandlers } from './handler-table.ts';

/**
 * True when a `model_complete` updates context usage (R9.7, R16.1): `querySource`
 * `main_turn`, or an absent one unless `stopReason` is `tool_internal`.
 */
function updatesContextUsage(payload: ModelCompletePayload): boolean {
  if (payload.querySource === undefined) return payload.stopReason !== 'tool_internal';
  return payload.querySource === 'main_turn';
}

/** Session, model, compaction, checkpoint, rewind and recovery handlers (R16.3). */
export const sessionHandlers: ProjectionHandlers<
  | 'session_created'
  | 'session_compacted'
  | 'session_mode_changed'
  | 'compact_boundary'
  | 'checkpoint_created'
  | 'rewind_triggered'
  | 'model_complete'
  | 'streaming_tool_ledger_updated'
  | 'stream_recovery_anchor_created'
> = {
  session_created: (p, e) => (e.payload.mode === undefined ? p : { ...p, mode: e.payload.mode }),
  session_mode_changed: (p, e) => ({ ...p, mode: e.payload.mode }),
  session_compacted: (p, e) => {
    const post = e.payload.postCompactTokenCount;
    return {
      ...p,
      contextUsed: post ?? p.contextUsed,
      lastCompact: {
        boundaryId: e.payload.boundaryId ?? null,
        trigger: null,
        preCompactTokenCount: e.payload.preCompactTokenCount ?? null,
        postCompactTokenCount: post ?? null,
        at: e.timestamp,
      },
    };
  },
  compact_boundary: (p, e) => {
    const post = e.payload.postCompactTokenCount;
    return {
      ...p,
      contextUsed: post ?? p.contextUsed,
      lastCompact: {
        boundaryId: e.payload.boundaryId,
        trigger: e.payload.trigger,
        preCompactTokenCount: e.payload.preCompactTokenCount,
        postCompactTokenCount: post ?? null,
        at: e.timestamp,
      },
    };
  },
  checkpoint_created: (p, e) => ({ ...p, lastCheckpoint: { ...e.payload, at: e.timestamp } }),
  rewind_triggered: (p, e) => ({ ...p, lastRewind: { ...e.payload, at: e.timestamp } }),
  model_complete: (p, e) => {
    if (!updatesContextUsage(e.payload)) return p;
    return {
      ...p,
      contextUsed: contextTokensOf(e.payload.usage),
      contextWindow: e.payload.contextWindow ?? p.contextWindow,
    };
  },
  streaming_tool_ledger_updated: (p, e) => ({ ...p, streamingToolLedger: e.payload.entries }),
  stream_recovery_anchor_created: (p, e) => ({
    ...p,
    lastStreamRecoveryAnchor: { ...e.payload, at: e.timestamp },
  }),
};
