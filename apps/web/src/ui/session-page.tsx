import { useEffect, useRef } from 'preact/hooks';
import {
  answerPermission,
  clearQueue,
  editInput,
  interruptTurn,
  type Lane,
  moveInput,
  removeInput,
  renameSession,
  sendPrompt,
} from '../api/gateway-api.ts';
import { Composer } from './composer.tsx';
import { ConnectionBanner } from './connection-banner.tsx';
import { MessageItem } from './message-item.tsx';
import { PermissionCard } from './permission-card.tsx';
import { QueuePanel } from './queue-panel.tsx';
import { SessionTitle } from './session-title.tsx';
import { StatusBadge } from './status-badge.tsx';
import { useSession } from './use-session.ts';

/** One open session: header, transcript, pending permissions, the queue and the prompt box. */
export function SessionPage({ sessionId }: { readonly sessionId: string }) {
  const { view, status, error, loadOlder } = useSession(sessionId);
  const log = useRef<HTMLDivElement>(null);
  const count = view?.applied ?? 0;
  const loaded = view !== undefined;
  // New output scrolls into view, unless the reader scrolled up to read something older.
  const following = useRef(true);
  useEffect(() => {
    const el = log.current;
    if (el !== null && following.current) el.scrollTop = el.scrollHeight;
  }, [count, loaded]);
  const p = view?.projection;
  const running = p !== undefined && p.currentTurnId !== null;
  const title = p?.title ?? 'New session';
  return (
    <section
      class="session"
      aria-labelledby="session-title"
      data-session-id={sessionId}
      data-last-seq={view?.lastSeq ?? -1}
      data-applied={count}
    >
      <header class="session-header">
        <SessionTitle
          sessionId={sessionId}
          title={title}
          onRename={async (next) => {
            await renameSession(sessionId, next);
          }}
        />
        {p === undefined ? null : <StatusBadge status={p.status} />}
        <ConnectionBanner status={status} />
      </header>
      {error === undefined ? null : (
        <p class="error" role="alert">
          Could not open the session: {error}
        </p>
      )}
      <div
        class="transcript"
        role="log"
        aria-label="Conversation"
        aria-live="polite"
        ref={log}
        onScroll={(e) => {
          const el = e.currentTarget;
          following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        {loadOlder === undefined ? null : (
          <button type="button" class="older" onClick={() => void loadOlder()}>
            Show earlier messages
          </button>
        )}
        {view === undefined && error === undefined ? <p class="muted">Loading…</p> : null}
        {view?.transcript.messages.length === 0 ? (
          <p class="empty">No messages yet. Write the first one below.</p>
        ) : null}
        {view?.transcript.messages.map((m) => (
          <MessageItem key={m.id} message={m} />
        ))}
        {view?.transcript.notices.map((n) => (
          <p key={`${n.turnId}:${n.text}`} class={`notice notice-${n.level}`}>
            {n.text}
          </p>
        ))}
      </div>
      <div class="dock">
        {p?.pendingPermissions.map((request) => (
          <PermissionCard
            key={request.requestId ?? request.toolCallId}
            request={request}
            onAnswer={async (id, decision) => {
              await answerPermission(sessionId, id, decision);
            }}
          />
        ))}
        <QueuePanel
          inputs={p?.pendingSteerInputs ?? []}
          actions={{
            edit: async (inputId, text) => {
              await editInput(sessionId, inputId, text);
            },
            move: async (inputId, position) => {
              await moveInput(sessionId, inputId, position);
            },
            remove: async (inputId) => {
              await removeInput(sessionId, inputId);
            },
            clear: async () => {
              await clearQueue(sessionId);
            },
          }}
        />
        <Composer
          running={running}
          onSend={async (text: string, lane: Lane) => {
            await sendPrompt(sessionId, text, lane);
          }}
          onInterrupt={async () => {
            await interruptTurn(sessionId);
          }}
        />
      </div>
    </section>
  );
}
