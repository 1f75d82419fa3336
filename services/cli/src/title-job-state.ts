import type { SessionEvent } from '@agentwire/contracts';

/**
 * Where a session's title job stands, as a follower sees it (DESIGN.md flow 4, R9.4-R9.7):
 * `none` (no job seen), `requested` (`model_request` with `querySource: "session_title"`),
 * `answered` (its `model_complete`; a `session_title_updated` may follow), `settled`
 * (`session_title_updated` `generated`, or the job's `model_error`).
 */
export type TitleJobState = 'none' | 'requested' | 'answered' | 'settled';

/** The title job's state after `event` (pure; events of other kinds keep it). */
export function nextTitleJobState(state: TitleJobState, event: SessionEvent): TitleJobState {
  switch (event.type) {
    case 'model_request':
      return event.payload.querySource === 'session_title' ? 'requested' : state;
    case 'model_complete':
      return event.payload.querySource === 'session_title' ? 'answered' : state;
    case 'model_error':
      return event.payload.querySource === 'session_title' ? 'settled' : state;
    case 'session_title_updated':
      return event.payload.source === 'generated' ? 'settled' : state;
    default:
      return state;
  }
}

/** True while a title job is under way: a follower that wants its outcome keeps reading. */
export function titleJobPending(state: TitleJobState): boolean {
  return state === 'requested' || state === 'answered';
}
