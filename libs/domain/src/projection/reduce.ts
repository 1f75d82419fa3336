import type { SessionEvent, SessionProjection } from '@agentwire/contracts';
import { DEFAULT_CONTEXT_WINDOW } from '@agentwire/contracts';
import type { ProjectionHandler } from './handler-table.ts';
import { projectionHandlers } from './handlers.ts';

const table = projectionHandlers as unknown as Readonly<
  Partial<Record<string, ProjectionHandler<SessionEvent['type']>>>
>;

/**
 * The projection of a session that has seen no event (R16.3 defaults): mode `build`,
 * status `idle`, context window 200000, empty lists, `lastSequenceNumber` 0.
 */
export function initialProjection(sessionId: string, createdAt: number): SessionProjection {
  return {
    id: sessionId,
    createdAt,
    updatedAt: createdAt,
    lastSequenceNumber: 0,
    title: null,
    titleSource: null,
    mode: 'build',
    status: 'idle',
    turnCount: 0,
    totalTokenCount: 0,
    contextUsed: 0,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    pendingPermissions: [],
    pendingSteerInputs: [],
    queueModes: { steeringMode: 'all', followUpMode: 'one_at_a_time', autoDrain: true },
    activeToolCalls: [],
    streamingToolLedger: [],
    backgroundTasks: [],
    currentTurnId: null,
    lastError: null,
    lastCompact: null,
    lastCheckpoint: null,
    lastRewind: null,
    lastStreamRecoveryAnchor: null,
    target: null,
    targetCompletionVerifications: [],
    targetCompletionVerificationTimeline: [],
  };
}

/**
 * Applies one stored event (R10). Pure: times come from the event. An event is ignored
 * (the same projection object is returned) when its `sequenceNumber` is at or below
 * `lastSequenceNumber` (already applied, or unnumbered: the store numbers from 1, R2.3) or
 * when it belongs to another session. One of the 30 handled types goes through its handler
 * (R16.3); every other type only bumps `updatedAt` (R10.1). Either way `updatedAt` becomes
 * the event's timestamp and `lastSequenceNumber` its number.
 */
export function reduce(projection: SessionProjection, event: SessionEvent): SessionProjection {
  if (event.sequenceNumber <= projection.lastSequenceNumber) return projection;
  if (event.sessionId !== projection.id) return projection;
  const handler = table[event.type];
  const next = handler === undefined ? projection : handler(projection, event);
  if (next === projection) {
    return {
      ...projection,
      updatedAt: event.timestamp,
      lastSequenceNumber: event.sequenceNumber,
    };
  }
  // `next` is a fresh object built by the handler for this call: stamping it in place
  // saves a second copy on the hot path.
  next.updatedAt = event.timestamp;
  next.lastSequenceNumber = event.sequenceNumber;
  return next;
}

/**
 * Reduces a session's events from scratch (R10.3): the initial projection takes the first
 * event's timestamp as `createdAt` (0 for no events). Events are applied in the order given;
 * duplicates and stale numbers are skipped by {@link reduce}.
 */
export function rebuildProjection(
  sessionId: string,
  events: Iterable<SessionEvent>,
): SessionProjection {
  let projection: SessionProjection | undefined;
  for (const event of events) {
    projection ??= initialProjection(sessionId, event.timestamp);
    projection = reduce(projection, event);
  }
  return projection ?? initialProjection(sessionId, 0);
}
