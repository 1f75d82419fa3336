import type { PendingSteerInput } from '@agentwire/contracts';
import { useState } from 'preact/hooks';

const LANE: Readonly<Record<string, string>> = {
  queue: 'Queued',
  guide: 'Steering',
  startNow: 'Starting',
};

/** What the queue's buttons do; each is one gateway route (`/sessions/:id/queue/...`). */
export interface QueueActions {
  edit(inputId: string, text: string): Promise<void>;
  move(inputId: string, position: number): Promise<void>;
  remove(inputId: string): Promise<void>;
  clear(): Promise<void>;
}

/**
 * The inputs waiting for the running turn (R14.3), in order, each with Edit, Move up,
 * Move down and Remove, and Clear for all. The list is the projection's, so it changes when the
 * runtime's event says so, in every tab alike; a refused change (the input already left)
 * is shown, not hidden.
 */
export function QueuePanel(props: {
  readonly inputs: readonly PendingSteerInput[];
  readonly actions: QueueActions;
}) {
  const [error, setError] = useState<string | undefined>();
  const [editing, setEditing] = useState<{ id: string; text: string } | undefined>();
  const { inputs, actions } = props;
  if (inputs.length === 0) return null;
  const act = (action: () => Promise<void>) => {
    setError(undefined);
    action().catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  return (
    <section class="queue" aria-labelledby="queue-title">
      <div class="queue-head">
        <h2 id="queue-title">Waiting ({inputs.length})</h2>
        <button type="button" class="small" onClick={() => act(actions.clear)}>
          Clear
        </button>
      </div>
      <ol>
        {inputs.map((input, i) => (
          <li key={input.pendingInputId} data-input-id={input.pendingInputId}>
            <span class={`badge badge-lane-${input.delivery}`}>
              {LANE[input.delivery] ?? input.delivery}
            </span>
            {editing?.id === input.pendingInputId ? (
              <form
                class="queue-edit"
                onSubmit={(e) => {
                  e.preventDefault();
                  const text = editing.text.trim();
                  if (text === '') return;
                  act(async () => {
                    await actions.edit(input.pendingInputId, text);
                    setEditing(undefined);
                  });
                }}
              >
                <label for={`edit-${input.pendingInputId}`} class="visually-hidden">
                  New text
                </label>
                <input
                  id={`edit-${input.pendingInputId}`}
                  value={editing.text}
                  ref={(el) => el?.focus()}
                  onInput={(e) =>
                    setEditing({ id: input.pendingInputId, text: e.currentTarget.value })
                  }
                  onKeyDown={(e) => {
                    if (e.key === 'Escape') setEditing(undefined);
                  }}
                />
                <button type="submit" class="small primary">
                  Save
                </button>
              </form>
            ) : (
              <span class="queue-text">{input.inputPreview}</span>
            )}
            <span class="queue-actions">
              <button
                type="button"
                class="small"
                aria-label={`Edit “${input.inputPreview}”`}
                onClick={() => setEditing({ id: input.pendingInputId, text: input.input })}
              >
                ✎
              </button>
              <button
                type="button"
                class="small"
                aria-label={`Move “${input.inputPreview}” up`}
                disabled={i === 0}
                onClick={() => act(() => actions.move(input.pendingInputId, i - 1))}
              >
                ↑
              </button>
              <button
                type="button"
                class="small"
                aria-label={`Move “${input.inputPreview}” down`}
                disabled={i === inputs.length - 1}
                onClick={() => act(() => actions.move(input.pendingInputId, i + 1))}
              >
                ↓
              </button>
              <button
                type="button"
                class="small"
                aria-label={`Remove “${input.inputPreview}”`}
                onClick={() => act(() => actions.remove(input.pendingInputId))}
              >
                ✕
              </button>
            </span>
          </li>
        ))}
      </ol>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
