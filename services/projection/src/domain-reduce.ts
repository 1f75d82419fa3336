import type { SessionProjection } from '@agentwire/contracts';
import { initialProjection, reduce } from '@agentwire/domain';
import type { Reduce } from './reduce.ts';

/**
 * The domain reducer (R10.1) in the applier's shape: the first event of a session starts
 * from `initialProjection` stamped with that event's time, exactly as `rebuildProjection`
 * does, so a live projection equals a rebuild of the same events (R10.3).
 */
export const reduceSessionProjection: Reduce<SessionProjection> = (projection, event) =>
  reduce(projection ?? initialProjection(event.sessionId, event.timestamp), event);
