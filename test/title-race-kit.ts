import { type SessionEvent, SessionProjection } from '@agentwire/contracts';
import { waitForConsumersIdle } from '@agentwire/persistence-worker/testing';
import type { EventWatcher, RuntimeStack } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';

/** A title as an event or a row states it. */
export interface TitleState {
  readonly title: string | null;
  readonly source: string | null;
}

/** The session's `session_title_updated` events, as title and source, in order. */
export function titleEvents(events: readonly SessionEvent[]): TitleState[] {
  return events.flatMap((e) =>
    e.type === 'session_title_updated'
      ? [{ title: e.payload.title, source: e.payload.source }]
      : [],
  );
}

/** True when the session emitted a title request (`model_request`, `session_title`). */
export function askedForTitle(events: readonly SessionEvent[]): boolean {
  return events.some(
    (e) => e.type === 'model_request' && e.payload.querySource === 'session_title',
  );
}

/** Model errors of the session's title job. */
export function titleErrors(events: readonly SessionEvent[]): SessionEvent[] {
  return events.filter(
    (e) => e.type === 'model_error' && e.payload.querySource === 'session_title',
  );
}

/** Ids of the sessions whose title job the runtimes logged as settled. */
function settledTitleJobs(stack: RuntimeStack): Set<string> {
  const settled = new Set<string>();
  for (const proc of stack.runtimes.values()) {
    for (const line of proc.lines) {
      if (!line.includes('title job settled')) continue;
      const parsed = JSON.parse(line) as { sessionId?: string };
      if (parsed.sessionId !== undefined) settled.add(parsed.sessionId);
    }
  }
  return settled;
}

/** Titles of the sessions as Postgres holds them. */
export async function storedTitles(
  stack: RuntimeStack,
  ids: readonly string[],
): Promise<Map<string, TitleState>> {
  const rows = await stack.db
    .selectFrom('sessions')
    .select(['id', 'title', 'title_source'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, { title: r.title, source: r.title_source }]));
}

/** Titles of the sessions as their projections hold them, with the last applied number. */
export async function projectedTitles(
  stack: RuntimeStack,
  ids: readonly string[],
): Promise<Map<string, TitleState & { readonly lastSequence: number }>> {
  const rows = await stack.db
    .selectFrom('session_projections')
    .select(['session_id', 'projection', 'last_sequence'])
    .where('session_id', 'in', [...ids])
    .execute();
  return new Map(
    rows.map((r) => {
      const p = SessionProjection.parse(r.projection);
      return [
        r.session_id,
        { title: p.title, source: p.titleSource, lastSequence: r.last_sequence },
      ];
    }),
  );
}

/**
 * Waits until every session is settled: its turn completed, its title job (if it asked
 * for a title) logged as settled by its runtime, the persistence worker's consumers idle,
 * the watcher caught up with the stream and, with projections running, every session's
 * projection at its last event.
 */
export async function settle(
  stack: RuntimeStack,
  watcher: EventWatcher,
  ids: readonly string[],
  timeoutMs = 120_000,
): Promise<void> {
  await waitUntil(
    () => {
      const settled = settledTitleJobs(stack);
      return ids.every((sid) => {
        const events = watcher.events(sid);
        if (!events.some((e) => e.type === 'turn_complete')) return false;
        return !askedForTitle(events) || settled.has(sid);
      });
    },
    { timeoutMs, intervalMs: 100, what: 'every turn and title job settled' },
  );
  await waitForConsumersIdle(
    stack.bus.jsm,
    [
      [stack.names.eventsStream, 'persistence-events'],
      [stack.names.commandsStream, 'persistence-commands'],
    ],
    { timeoutMs, intervalMs: 100 },
  );
  await watcher.caughtUp();
  if (stack.projection === undefined) return;
  await waitUntil(
    async () => {
      const projected = await projectedTitles(stack, ids);
      return ids.every(
        (sid) =>
          (projected.get(sid)?.lastSequence ?? 0) >=
          (watcher.events(sid).at(-1)?.sequenceNumber ?? 0),
      );
    },
    { timeoutMs, intervalMs: 200, what: 'every projection at its last event' },
  );
}
