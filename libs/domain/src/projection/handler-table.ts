import type { EventType, SessionEventOf, SessionProjection } from '@agentwire/contracts';

/**
 * The event types the reducer handles: R16.3's 30 (R10.1), `session_title_updated`
 * (ours, docs/decisions/0132), and `turn_steer_dispatch_changed`, `followup_mode_changed`,
 * `queue_auto_drain_changed` and `session_input_promoted` (ours, docs/decisions/0235-0237); every other type bumps
 * `updatedAt`.

 *
 * @internal Exported for its tests.
 */
export const HANDLED_EVENT_TYPES = [
  'session_created',
  'session_title_updated',
  'turn_started',
  'session_compacted',
  'session_mode_changed',
  'compact_boundary',
  'checkpoint_created',
  'rewind_triggered',
  'turn_complete',
  'model_complete',
  'streaming_tool_ledger_updated',
  'stream_recovery_anchor_created',
  'target_changed',
  'target_completion_verification',
  'turn_error',
  'turn_steer_queued',
  'turn_steer_delivery_changed',
  'turn_steer_dispatch_changed',
  'followup_mode_changed',
  'queue_auto_drain_changed',
  'session_input_promoted',
  'turn_steer_reordered',
  'turn_steer_drained',
  'turn_steer_discarded',
  'tool_call_scheduled',
  'tool_call_started',
  'tool_call_result',
  'tool_call_error',
  'tool_batch_complete',
  'background_task_started',
  'background_task_updated',
  'background_task_completed',
  'permission_requested',
  'permission_resolved',
  'permission_denied',
] as const satisfies readonly EventType[];

/** One of the handled types. */
type HandledEventType = (typeof HANDLED_EVENT_TYPES)[number];

/**
 * A handler: a pure function from the projection and one event of its type to the next
 * projection. `updatedAt` and `lastSequenceNumber` are stamped by the reducer, not here.
 */
export type ProjectionHandler<K extends EventType> = (
  projection: SessionProjection,
  event: SessionEventOf<K>,
) => SessionProjection;

/**
 * The handler table, keyed by the full set of handled types: a missing or misspelt handler
 * is a compile error (STYLE.md, R10.1).
 */
export type ProjectionHandlerTable = { readonly [K in HandledEventType]: ProjectionHandler<K> };

/** A slice of the table, for one file of handlers. */
export type ProjectionHandlers<K extends HandledEventType> = Pick<ProjectionHandlerTable, K>;
