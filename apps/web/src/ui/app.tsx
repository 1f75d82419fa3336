import type { SessionSummary } from '@agentwire/contracts';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { createSession, listSessions } from '../api/gateway-api.ts';
import { SessionList } from './session-list.tsx';
import { SessionPage } from './session-page.tsx';

/** How often the session list is read again, for titles and statuses of other sessions. */
const LIST_REFRESH_MS = 2_000;

function openIdOf(hash: string): string | undefined {
  const match = /^#\/s\/([^/]+)$/.exec(hash);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

/**
 * The page: the session list beside the open session. Routing is the URL's hash
 * (`#/s/<id>`), so the gateway serves one `index.html` and every API path stays its own.
 */
export function App() {
  const [openId, setOpenId] = useState(() => openIdOf(location.hash));
  const [sessions, setSessions] = useState<readonly SessionSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const refresh = useCallback(() => {
    listSessions().then(
      (page) => {
        setSessions(page.sessions);
        setError(undefined);
      },
      (e: unknown) =>
        setError(`Sessions unavailable: ${e instanceof Error ? e.message : String(e)}`),
    );
  }, []);
  useEffect(() => {
    const onHash = () => setOpenId(openIdOf(location.hash));
    addEventListener('hashchange', onHash);
    refresh();
    const timer = setInterval(refresh, LIST_REFRESH_MS);
    return () => {
      removeEventListener('hashchange', onHash);
      clearInterval(timer);
    };
  }, [refresh]);
  const create = () => {
    createSession().then(
      (id) => {
        location.hash = `#/s/${encodeURIComponent(id)}`;
        refresh();
      },
      (e: unknown) =>
        setError(`Could not create a session: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  return (
    <div class="layout">
      <SessionList sessions={sessions} openId={openId} error={error} onCreate={create} />
      <main class="main">
        {openId === undefined ? (
          <div class="welcome">
            <h1>Your sessions</h1>
            <p>Pick a session on the left, or start a new one.</p>
          </div>
        ) : (
          <SessionPage key={openId} sessionId={openId} />
        )}
      </main>
    </div>
  );
}
