import type { PendingSteerInput } from '@agentwire/contracts';

const LANE: Readonly<Record<string, string>> = {
  queue: 'Queued',
  guide: 'Steering',
  startNow: 'Starting',
};

/**
 * The inputs waiting for the running turn (R14.3), in order. The gateway has no route yet
 * to move or remove one (the runtime's `remove_input` and `reorder_inputs` are NATS-only),
 * so the list is read-only here (docs/decisions/0212).
 */
export function QueuePanel({ inputs }: { readonly inputs: readonly PendingSteerInput[] }) {
  if (inputs.length === 0) return null;
  return (
    <section class="queue" aria-labelledby="queue-title">
      <h3 id="queue-title">Waiting ({inputs.length})</h3>
      <ol>
        {inputs.map((input) => (
          <li key={input.pendingInputId} data-input-id={input.pendingInputId}>
            <span class={`badge badge-lane-${input.delivery}`}>
              {LANE[input.delivery] ?? input.delivery}
            </span>
            <span class="queue-text">{input.inputPreview}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
