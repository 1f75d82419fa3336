import { lastSessionSequence } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { getSession } from '@agentwire/store';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { StoreDb } from './session-loader.ts';

/** Where a session's existence was seen; `undefined` from {@link sessionTrace} when nowhere. */
export type SessionTrace = 'lease' | 'events' | 'row';

/** Dependencies of {@link sessionTrace}. */
export interface SessionTraceDeps {
  readonly jsm: JetStreamManager;
  readonly names: Names;
  readonly db: StoreDb;
  /** True when the lease bucket holds a lease on the id (`LeaseManager.isTaken`). */
  readonly isLeased: (sessionId: string) => Promise<boolean>;
}

/**
 * Whether a session exists anywhere, by reads only (R13.2, docs/decisions/0077): a lease
 * (an opened session, maybe still silent), events in the stream, or a session row. The
 * runtime asks this before it takes the lease of an id for any operation but `open` and
 * `create`, so an unknown id never holds, nor leaves, a lease: a frontend's follow of that
 * id (`RuntimeClient.knows`) sees no trace while the operation is being refused.
 */
export async function sessionTrace(
  deps: SessionTraceDeps,
  sessionId: string,
): Promise<SessionTrace | undefined> {
  // The lease first: an operation on a session resident elsewhere (the queue-group fallback,
  // docs/decisions/0071) is answered by its owner, and this instance then reads neither the
  // stream nor Postgres. Those are read only for a session nobody holds: a recovery.
  if (await deps.isLeased(sessionId)) return 'lease';
  const [tip, row] = await Promise.all([
    lastSessionSequence(deps.jsm, deps.names, sessionId),
    getSession(deps.db, sessionId),
  ]);
  if (tip !== null) return 'events';
  return row === undefined ? undefined : 'row';
}
