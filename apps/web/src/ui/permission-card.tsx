import type { PendingPermission } from '@agentwire/contracts';
import { useState } from 'preact/hooks';

/** A permission request with Allow and Deny; the buttons wait while the answer is sent. */
export function PermissionCard(props: {
  readonly request: PendingPermission;
  readonly onAnswer: (requestId: string, decision: 'allow' | 'deny') => Promise<void>;
}) {
  const { request } = props;
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const requestId = request.requestId;
  const answer = async (decision: 'allow' | 'deny') => {
    if (requestId === undefined) return;
    setSending(true);
    setError(undefined);
    try {
      await props.onAnswer(requestId, decision);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setSending(false);
    }
  };
  const titleId = `perm-${request.toolCallId}`;
  return (
    <section class="permission" aria-labelledby={titleId}>
      <h2 id={titleId}>
        Allow <code>{request.toolName}</code>?
        <span class={`risk risk-${request.riskLevel}`}>{request.riskLevel} risk</span>
      </h2>
      {request.reason === undefined ? null : <p>{request.reason}</p>}
      {request.input === undefined ? null : (
        <pre class="permission-input">{JSON.stringify(request.input, null, 2)}</pre>
      )}
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={sending || requestId === undefined}
          onClick={() => void answer('allow')}
        >
          Allow
        </button>
        <button
          type="button"
          disabled={sending || requestId === undefined}
          onClick={() => void answer('deny')}
        >
          Deny
        </button>
      </div>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
