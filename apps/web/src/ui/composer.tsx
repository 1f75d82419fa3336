import { useState } from 'preact/hooks';
import type { Lane } from '../api/gateway-api.ts';

/**
 * The prompt box. While a turn runs a prompt either steers it (delivered into the running
 * turn) or queues behind it; Enter sends, Shift+Enter is a new line, and Interrupt stops
 * the turn.
 */
export function Composer(props: {
  readonly running: boolean;
  readonly onSend: (text: string, lane: Lane) => Promise<void>;
  readonly onInterrupt: () => Promise<void>;
}) {
  const [text, setText] = useState('');
  const [lane, setLane] = useState<Lane>('queue');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const send = async () => {
    const prompt = text.trim();
    if (prompt === '' || busy) return;
    if (await run(() => props.onSend(prompt, lane))) setText('');
  };
  return (
    <form
      class="composer"
      aria-label="Send a message"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label for="prompt" class="visually-hidden">
        Message
      </label>
      <textarea
        id="prompt"
        rows={3}
        placeholder={
          props.running ? 'Steer the running turn, or queue a message…' : 'Ask anything…'
        }
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <div class="composer-bar">
        <fieldset class="lane" disabled={!props.running}>
          <legend>While a turn runs</legend>
          <label>
            <input
              type="radio"
              name="lane"
              value="guide"
              checked={lane === 'guide'}
              onChange={() => setLane('guide')}
            />
            Steer
          </label>
          <label>
            <input
              type="radio"
              name="lane"
              value="queue"
              checked={lane === 'queue'}
              onChange={() => setLane('queue')}
            />
            Queue
          </label>
        </fieldset>
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={!props.running}
            onClick={() => void run(props.onInterrupt)}
          >
            Interrupt
          </button>
          <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
            Send
          </button>
        </div>
      </div>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
