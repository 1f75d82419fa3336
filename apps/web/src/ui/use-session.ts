import type { SessionEvent, SessionProjection } from '@agentwire/contracts';
import { useEffect, useState } from 'preact/hooks';
import { historyPage } from '../api/gateway-api.ts';
import { type FeedStatus, SessionFeed } from '../feed/session-feed.ts';
import { baseAt, loadBase } from '../state/load-base.ts';
import { applyEvents, type SessionView, withOlderMessages } from '../state/session-view.ts';

/** An open session: its view once loaded, the feed's status, a load failure. */
export interface OpenSession {
  readonly view: SessionView | undefined;
  readonly status: FeedStatus;
  readonly error: string | undefined;
  /** Loads the page of messages before the oldest shown; absent when there is none. */
  readonly loadOlder: (() => Promise<void>) | undefined;
}

/**
 * Opens a session: loads its base (projection and history as of N), then follows it from
 * N. Every event goes through `applyEvents`, which drops what the view already has. A
 * snapshot frame (the base expired, R15.1) replaces the whole view with that projection and
 * the history exact for its number; events that arrive while that history loads wait for
 * it and are applied on top, so none is lost to the replacement.
 */
export function useSession(sessionId: string): OpenSession {
  const [view, setView] = useState<SessionView | undefined>();
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const [error, setError] = useState<string | undefined>();
  const [older, setOlder] = useState<string | null>(null);
  useEffect(() => {
    let feed: SessionFeed | undefined;
    let closed = false;
    /** Events held while a snapshot's history loads; the generation tells stale loads. */
    let held: SessionEvent[] | undefined;
    let generation = 0;
    setView(undefined);
    setError(undefined);
    setStatus('connecting');
    setOlder(null);
    const fail = (e: unknown) => !closed && setError(e instanceof Error ? e.message : String(e));
    const replace = (projection: SessionProjection, asOfSeq: number) => {
      generation += 1;
      const mine = generation;
      held = [];
      baseAt(sessionId, projection, asOfSeq).then(({ view: base, older: cursor }) => {
        if (closed || mine !== generation) return;
        setView(applyEvents(base, held ?? []));
        setOlder(cursor);
        held = undefined;
      }, fail);
    };
    loadBase(sessionId).then(({ view: base, older: cursor }) => {
      if (closed) return;
      setView(base);
      setOlder(cursor);
      feed = new SessionFeed(
        { baseUrl: '', sessionId, afterSequence: base.lastSeq },
        {
          onEvents: (events) => {
            if (held !== undefined) held.push(...events);
            else setView((v) => (v === undefined ? v : applyEvents(v, events)));
          },
          onSnapshot: replace,
          onStatus: (s) => !closed && setStatus(s),
        },
      );
      feed.start();
    }, fail);
    return () => {
      closed = true;
      void feed?.stop();
    };
  }, [sessionId]);
  const loadOlder =
    older === null
      ? undefined
      : async () => {
          const page = await historyPage(sessionId, { cursor: older });
          setView((v) => (v === undefined ? v : withOlderMessages(v, page.messages)));
          setOlder(page.older);
        };
  return { view, status, error, loadOlder };
}
