import type { HistoryMessage, SessionEvent, SessionProjection } from '@agentwire/contracts';
import { reduce } from '@agentwire/domain';
import { applyToTranscript, type Transcript, transcriptOfHistory } from './transcript.ts';

/**
 * Everything an open session shows, as of `lastSeq`: the projection (status, title,
 * pending permissions, the queue), reduced by the domain's own reducer, the same one the
 * projection service runs, and the transcript.
 */
export interface SessionView {
  readonly projection: SessionProjection;
  readonly transcript: Transcript;
  /** The number of the last event applied; the feed follows from it. */
  readonly lastSeq: number;
  /** How many events were applied since the base: a duplicate would show here. */
  readonly applied: number;
}

/**
 * The view of a base: a projection and a history page, both exact for `asOfSeq`. This is
 * also what a snapshot frame (R15.1) replaces the whole view with.
 */
export function viewOfBase(
  projection: SessionProjection,
  messages: readonly HistoryMessage[],
  asOfSeq: number,
): SessionView {
  return {
    projection: { ...projection, lastSequenceNumber: asOfSeq },
    transcript: transcriptOfHistory(messages),
    lastSeq: asOfSeq,
    applied: 0,
  };
}

/**
 * Applies events in order. One at or below `lastSeq` is already in the view and changes
 * nothing: a replay after a reconnect, or a second copy, is dropped here.
 */
export function applyEvents(view: SessionView, events: readonly SessionEvent[]): SessionView {
  let next = view;
  for (const event of events) {
    if (event.sequenceNumber <= next.lastSeq) continue;
    next = {
      projection: reduce(next.projection, event),
      transcript: applyToTranscript(next.transcript, event),
      lastSeq: event.sequenceNumber,
      applied: next.applied + 1,
    };
  }
  return next;
}

/**
 * Puts an older history page (a page's `older` cursor) before the messages the view has;
 * a message it already has is kept as it is.
 */
export function withOlderMessages(
  view: SessionView,
  messages: readonly HistoryMessage[],
): SessionView {
  const older = transcriptOfHistory(messages);
  const have = new Set(view.transcript.messages.map((m) => m.id));
  return {
    ...view,
    transcript: {
      ...view.transcript,
      messages: [...older.messages.filter((m) => !have.has(m.id)), ...view.transcript.messages],
      settled: new Set([...older.settled, ...view.transcript.settled]),
    },
  };
}
