import type { SessionSummary } from '@agentwire/contracts';
import { StatusBadge } from './status-badge.tsx';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The sessions, newest activity first; the open one is marked as the current page. */
export function SessionList(props: {
  readonly sessions: readonly SessionSummary[] | undefined;
  readonly openId: string | undefined;
  readonly error: string | undefined;
  readonly onCreate: () => void;
}) {
  return (
    <nav class="sidebar" aria-label="Sessions">
      <div class="sidebar-head">
        <span class="brand">agentwire</span>
        <button type="button" class="primary" onClick={props.onCreate}>
          New session
        </button>
      </div>
      {props.error === undefined ? null : (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      {props.sessions === undefined ? <p class="muted">Loading sessions…</p> : null}
      {props.sessions?.length === 0 ? <p class="muted">No sessions yet.</p> : null}
      <ul class="session-list">
        {props.sessions?.map((s) => (
          <li key={s.id}>
            <a
              href={`#/s/${encodeURIComponent(s.id)}`}
              aria-current={s.id === props.openId ? 'page' : undefined}
              data-session-id={s.id}
            >
              <span class="session-title">{s.title ?? 'Untitled session'}</span>
              <span class="session-meta">
                <StatusBadge status={s.status} />
                <time dateTime={new Date(s.lastActivityAt ?? s.updatedAt).toISOString()}>
                  {when.format(s.lastActivityAt ?? s.updatedAt)}
                </time>
              </span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
