import type { EventType, SessionEvent } from '@agentwire/contracts';

/**
 * The event types of one turn of the scripted `two_tools` scenario with every permission
 * allowed, as {@link collapsedTypes} reports them: the input is received, queued, titled and
 * promoted, the model streams, reads `README.md`, asks to write `notes.txt`, checkpoints
 * it (with a checkpoint store, docs/decisions/0225), writes it, then answers.
 */
export const TWO_TOOLS_TURN_TYPES: readonly EventType[] = [
  'turn_input_received',
  'turn_steer_queued',
  'session_title_updated',
  'session_input_promoted',
  'turn_started',
  'model_request',
  'model_streaming',
  'model_complete',
  'tool_call_scheduled',
  'tool_call_scheduled',
  'tool_call_started',
  'tool_call_result',
  'permission_requested',
  'permission_resolved',
  'checkpoint_created',
  'tool_call_started',
  'tool_call_result',
  'tool_batch_complete',
  'model_request',
  'model_streaming',
  'model_complete',
  'turn_complete',
];

/**
 * The types of `events` in order, each run of `model_streaming` collapsed to one (how
 * many deltas a reply streams is not part of a turn's shape).
 */
export function collapsedTypes(events: readonly Pick<SessionEvent, 'type'>[]): EventType[] {
  const types = events.map((e) => e.type);
  return types.filter((t, i) => t !== 'model_streaming' || types[i - 1] !== 'model_streaming');
}
