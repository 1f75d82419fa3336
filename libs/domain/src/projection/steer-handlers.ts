import type { PendingSteerInput } from '@agentwire/contracts';
import type { ProjectionHandlers } from './handler-table.ts';

function without(
  inputs: readonly PendingSteerInput[],
  ids: ReadonlySet<string>,
): PendingSteerInput[] {
  return inputs.filter((i) => !ids.has(i.pendingInputId));
}

/**
 * Puts the listed inputs first, in the listed order; inputs the list does not name keep
 * their relative order after them (R14.4 `reordered`).
 */
function reorder(
  inputs: readonly PendingSteerInput[],
  orderedIds: readonly string[],
): PendingSteerInput[] {
  const byId = new Map(inputs.map((i) => [i.pendingInputId, i]));
  const listed: PendingSteerInput[] = [];
  for (const id of orderedIds) {
    const input = byId.get(id);
    if (input !== undefined && byId.delete(id)) listed.push(input);
  }
  return [...listed, ...byId.values()];
}

/**
 * Input-queue handlers (R16.3, R14.4): `queued` appends to `pendingSteerInputs` (the same
 * id again replaces it in place: an edit), `delivery_changed` updates the admitted
 * delivery, `dispatch_changed` its dispatch state, `reordered` reorders, `drained` and
 * `discarded` remove; the two mode events set `queueModes` (0235).
 */
export const steerHandlers: ProjectionHandlers<
  | 'turn_steer_queued'
  | 'turn_steer_delivery_changed'
  | 'turn_steer_dispatch_changed'
  | 'followup_mode_changed'
  | 'queue_auto_drain_changed'
  | 'session_input_promoted'
  | 'turn_steer_reordered'
  | 'turn_steer_drained'
  | 'turn_steer_discarded'
> = {
  turn_steer_queued: (p, e) => {
    const q = e.payload;
    // The same id again is an edit (docs/decisions/0222): replaced in place, same position.
    if (p.pendingSteerInputs.some((i) => i.pendingInputId === q.pendingInputId)) {
      return {
        ...p,
        pendingSteerInputs: p.pendingSteerInputs.map((i) =>
          i.pendingInputId === q.pendingInputId
            ? { ...i, input: q.input, inputPreview: q.inputPreview, inputSize: q.inputSize }
            : i,
        ),
      };
    }
    const input: PendingSteerInput = {
      pendingInputId: q.pendingInputId,
      input: q.input,
      inputPreview: q.inputPreview,
      inputSize: q.inputSize,
      queuedAt: e.timestamp,
      targetTurnId: q.targetTurnId,
      traceId: e.traceId,
      delivery: q.delivery,
      dispatch: 'queued',
    };
    return { ...p, pendingSteerInputs: [...p.pendingSteerInputs, input] };
  },
  turn_steer_delivery_changed: (p, e) => {
    const { pendingInputId, admittedDelivery } = e.payload;
    return {
      ...p,
      pendingSteerInputs: p.pendingSteerInputs.map((i) =>
        i.pendingInputId === pendingInputId ? { ...i, delivery: admittedDelivery } : i,
      ),
    };
  },
  // Where an input's dispatch is (0235); the input leaves with `drained` or `discarded`,
  // or when its turn starts.
  turn_steer_dispatch_changed: (p, e) => {
    const { pendingInputId, state } = e.payload;
    return {
      ...p,
      pendingSteerInputs: p.pendingSteerInputs.map((i) =>
        i.pendingInputId === pendingInputId ? { ...i, dispatch: state } : i,
      ),
    };
  },
  followup_mode_changed: (p, e) => ({
    ...p,
    queueModes: {
      ...p.queueModes,
      steeringMode: e.payload.steeringMode,
      followUpMode: e.payload.followUpMode,
    },
  }),
  queue_auto_drain_changed: (p, e) => ({
    ...p,
    queueModes: { ...p.queueModes, autoDrain: e.payload.enabled },
  }),
  // Its message is in the transcript: it waits no more, whether or not a turn ran on it
  // (a promotion a takeover found committed, 0237).
  session_input_promoted: (p, e) => ({
    ...p,
    pendingSteerInputs: without(p.pendingSteerInputs, new Set([e.payload.pendingInputId])),
  }),
  turn_steer_reordered: (p, e) => ({
    ...p,
    pendingSteerInputs: reorder(p.pendingSteerInputs, e.payload.orderedPendingInputIds),
  }),
  turn_steer_drained: (p, e) => ({
    ...p,
    pendingSteerInputs: without(p.pendingSteerInputs, new Set(e.payload.pendingInputIds)),
  }),
  turn_steer_discarded: (p, e) => ({
    ...p,
    pendingSteerInputs: without(p.pendingSteerInputs, new Set([e.payload.pendingInputId])),
  }),
};
