import {
  EVENT_TYPES,
  type EventType,
  isTransientEventType,
  type SessionEvent,
} from '@agentwire/contracts';
import { sampleEventPayloads, sampleSessionEvent } from '@agentwire/contracts/testing';
import fc from 'fast-check';

/** Ids drawn from a small pool, so that generated events refer to each other. */
const ID_POOL = ['a', 'b', 'c'] as const;
const SINGLE_ID_KEYS = ['toolCallId', 'pendingInputId', 'taskId', 'requestId', 'verificationId'];
const LIST_ID_KEYS = ['toolCallIds', 'pendingInputIds', 'orderedPendingInputIds'];

/** A recipe for one event: its type, its turn and the ids its payload refers to. */
export interface EventRecipe {
  readonly type: EventType;
  readonly turn: string | null;
  readonly id: string;
  readonly ids: readonly string[];
  readonly flag: boolean;
}

/** Turns of generated events; `null` is a session-level event. */
const TURN_POOL = ['t1', 't2', 't3', null] as const;

/** Lifecycle and transient types are drawn more often, so that turns start and seal. */
const typeArb: fc.Arbitrary<EventType> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EVENT_TYPES) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<EventType>(
      'turn_started',
      'turn_complete',
      'turn_error',
      'model_streaming',
      'tool_call_progress',
      'streaming_tool_ledger_updated',
      'model_network_status',
    ),
  },
);

/** Arbitrary event recipes over every type of the catalogue (R4). */
export const eventRecipeArb: fc.Arbitrary<EventRecipe> = fc.record({
  type: typeArb,
  turn: fc.constantFrom(...TURN_POOL),
  id: fc.constantFrom(...ID_POOL),
  ids: fc.subarray([...ID_POOL]),
  flag: fc.boolean(),
});

/**
 * A valid event from a recipe: the sample payload of its type (from
 * `@agentwire/contracts`), with the ids it refers to replaced from the pool and a few
 * decisions flipped, at `sequenceNumber` 0.
 */
function eventFromRecipe(
  recipe: EventRecipe,
  sessionId: string,
  index: number,
  timestamp: number,
): SessionEvent {
  const payload: Record<string, unknown> = { ...sampleEventPayloads[recipe.type] };
  for (const key of SINGLE_ID_KEYS) if (key in payload) payload[key] = recipe.id;
  for (const key of LIST_ID_KEYS) if (key in payload) payload[key] = [...recipe.ids];
  if (recipe.type === 'permission_resolved') payload.decision = recipe.flag ? 'deny' : 'allow';
  if (recipe.type === 'target_changed' && recipe.flag) payload.action = 'status_updated';
  if (recipe.type === 'model_complete' && recipe.flag) payload.querySource = 'session_title';
  // A transient event always belongs to a turn (contracts reject a null turnId, R3.3).
  const turnId = recipe.turn ?? (isTransientEventType(recipe.type) ? 't1' : null);
  const base = sampleSessionEvent(recipe.type, {
    id: `e${index}`,
    sessionId,
    turnId,
    timestamp,
  });
  return { ...base, payload } as SessionEvent;
}

/** Numbers events 1, 2, 3... as the store would (R2.2). */
export function numbered(recipes: readonly EventRecipe[], sessionId = 's1'): SessionEvent[] {
  return recipes.map((r, i) => ({
    ...eventFromRecipe(r, sessionId, i, 1_000 + i * 10),
    sequenceNumber: i + 1,
  })) as SessionEvent[];
}
