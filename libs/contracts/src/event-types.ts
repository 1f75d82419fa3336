/**
 * The 79 session event types of SPEC.md R4, grouped by category.
 *
 * This list is the project's vocabulary: payload schemas, the reducer's handler table and
 * the subject routing are all keyed by it.
 */
const EVENT_TYPES_BY_CATEGORY = {
  session: [
    'session_created',
    'session_resumed',
    'session_forked',
    'session_compacted',
    'session_title_updated',
    'session_mode_changed',
    'session_ended',
  ],
  turn: ['turn_started', 'turn_complete', 'turn_error', 'turn_input_received'],
  inputQueue: [
    'turn_steer_queued',
    'turn_steer_delivery_changed',
    'turn_steer_dispatch_changed',
    'turn_steer_drained',
    'turn_steer_rejected',
    'turn_steer_discarded',
    'turn_steer_reordered',
    'session_input_promoted',
    'queue_auto_drain_changed',
    'followup_mode_changed',
  ],
  messages: ['user_message', 'assistant_message', 'assistant_feedback_updated', 'system_message'],
  model: [
    'model_request',
    'model_selected',
    'model_streaming',
    'model_complete',
    'model_error',
    'model_network_status',
    'model_anomaly_warning',
    'network_request_status',
    'streaming_tool_ledger_updated',
    'stream_recovery_anchor_created',
    'stream_recovery_started',
    'stream_recovery_anchor_selected',
    'stream_recovery_tail_discarded',
    'stream_recovery_retry_started',
    'stream_recovery_blocked',
  ],
  tools: [
    'tool_call_scheduled',
    'tool_call_started',
    'tool_call_progress',
    'tool_call_result',
    'tool_call_error',
    'tool_batch_complete',
  ],
  background: [
    'background_task_started',
    'background_task_updated',
    'background_task_completed',
    'dynamic_workflow_run_progress',
  ],
  permission: [
    'permission_requested',
    'permission_resolved',
    'permission_denied',
    'user_input_auto_resolution_updated',
  ],
  hooks: [
    'workspace_hook_review_requested',
    'workspace_hook_review_settled',
    'workspace_hook_review_superseded',
    'workspace_hook_admission_updated',
    'hook_run_started',
    'hook_run_progress',
    'hook_run_completed',
    'hook_run_failed',
    'hook_run_blocked',
  ],
  compaction: [
    'compact_started',
    'compact_completed',
    'compact_failed',
    'compact_boundary',
    'microcompact_boundary',
  ],
  rewindCheckpoint: ['rewind_triggered', 'checkpoint_created'],
  target: ['target_changed', 'target_completion_verification'],
  subagent: ['subagent_spawned', 'subagent_message', 'subagent_stopped'],
  control: ['interrupt', 'cancel', 'resume', 'error'],
} as const;

type Categories = typeof EVENT_TYPES_BY_CATEGORY;

/** Name of one of the 79 event types (R4). */
export type EventType = Categories[keyof Categories][number];

/** All 79 event types, in catalogue order. */
export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_TYPES_BY_CATEGORY).flat();

/**
 * The four token-frequency types of R3.3: numbered and delivered live like any event, but
 * evicted from the store once their turn is sealed and superseded (R3.4, R3.5). On the bus
 * they travel on the turn's `tx` subject so that eviction is a subject purge.

 *
 * @internal Exported for its tests.
 */
export const TRANSIENT_EVENT_TYPES = [
  'model_streaming',
  'tool_call_progress',
  'streaming_tool_ledger_updated',
  'model_network_status',
] as const satisfies readonly EventType[];

/** One of the four transient types of R3.3. */
export type TransientEventType = (typeof TRANSIENT_EVENT_TYPES)[number];

const transientSet: ReadonlySet<string> = new Set(TRANSIENT_EVENT_TYPES);

/** True for the four transient types of R3.3. */
export function isTransientEventType(type: string): type is TransientEventType {
  return transientSet.has(type);
}

/** The seven durable types of R6, written into session entries and the input ledger. */
const DURABLE_EVENT_TYPES = [
  'checkpoint_created',
  'rewind_triggered',
  'user_input_auto_resolution_updated',
  'turn_steer_queued',
  'turn_steer_delivery_changed',
  'turn_steer_discarded',
  'target_completion_verification',
] as const satisfies readonly EventType[];

/** One of the seven durable types of R6. */
export type DurableEventType = (typeof DURABLE_EVENT_TYPES)[number];

const durableSet: ReadonlySet<string> = new Set(DURABLE_EVENT_TYPES);

/** True for the seven durable types of R6. */
export function isDurableEventType(type: string): type is DurableEventType {
  return durableSet.has(type);
}

const allSet: ReadonlySet<string> = new Set(EVENT_TYPES);

/** True when `type` names one of the 79 catalogued types. */
export function isEventType(type: string): type is EventType {
  return allSet.has(type);
}
