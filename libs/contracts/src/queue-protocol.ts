/**
 * The queue operations of the runtime's frontend protocol (`aw.rt.<sid>.<op>` on waiting
 * inputs, R12, R14.4): request and reply bodies, beside `runtime-protocol.ts`.
 */
import { z } from 'zod';
import { QueueMode } from './payloads/input-queue.ts';

/** `aw.rt.<sid>.remove_input`: remove a waiting input (`turn_steer_discarded` `user_removed`). */
export const RemoveInputRequest = z.strictObject({ inputId: z.string().min(1) });
/** `remove_input` request. */
export type RemoveInputRequest = z.infer<typeof RemoveInputRequest>;

/**
 * `aw.rt.<sid>.reorder_inputs`: the listed waiting inputs move to the front in this order,
 * the others keep theirs (`turn_steer_reordered`, R14.4). Replies `{ ok, order }`.
 */
export const ReorderInputsRequest = z.strictObject({
  orderedInputIds: z.array(z.string().min(1)).min(1),
});
/** `reorder_inputs` request. */
export type ReorderInputsRequest = z.infer<typeof ReorderInputsRequest>;

/**
 * `aw.rt.<sid>.move_input`: the waiting input moves to `position` (0 = next to run), the
 * others keep their order (`turn_steer_reordered` with the whole new order). Replies
 * `{ ok, order }`; a position past the last is `position_out_of_range`.
 */
export const MoveInputRequest = z.strictObject({
  inputId: z.string().min(1),
  position: z.number().int().min(0),
});
/** `move_input` request. */
export type MoveInputRequest = z.infer<typeof MoveInputRequest>;

/**
 * `aw.rt.<sid>.edit_input`: a waiting input's text is replaced in place (same id, position
 * and delivery; `turn_steer_queued` again with the same pending input id,
 * docs/decisions/0222). The text is a prompt: templates and `@file` references expand; a
 * direct command is `invalid_command`. Replies `{ ok, inputId }`.
 */
export const EditInputRequest = z.strictObject({
  inputId: z.string().min(1),
  text: z.string(),
});
/** `edit_input` request. */
export type EditInputRequest = z.infer<typeof EditInputRequest>;

/**
 * `aw.rt.<sid>.clear_inputs`: every waiting input leaves (`turn_steer_discarded`
 * `user_cleared`). On an empty queue it is a no-op, not an error. Replies
 * `{ ok, cleared }`, the ids that left, in their order.
 */
export const ClearInputsReply = z.object({ ok: z.literal(true), cleared: z.array(z.string()) });
/** Reply of `clear_inputs`. */
export type ClearInputsReply = z.infer<typeof ClearInputsReply>;

/** Reply of `remove_input`: the input that was removed. */
export const RemoveInputReply = z.object({ ok: z.literal(true), inputId: z.string() });
/** Reply of `remove_input`. */
export type RemoveInputReply = z.infer<typeof RemoveInputReply>;

/** Reply of `reorder_inputs`: the waiting inputs' ids in their new order. */
export const ReorderInputsReply = z.object({ ok: z.literal(true), order: z.array(z.string()) });
/** Reply of `reorder_inputs`. */
export type ReorderInputsReply = z.infer<typeof ReorderInputsReply>;

/**
 * `aw.rt.<sid>.set_queue_modes` (R12.2, docs/decisions/0236): how the two lanes hand their
 * actions over (`all`: the consecutive ones of a lane as one batch; `one_at_a_time`), and
 * whether queued inputs start turns by themselves (`autoDrain`). Fields left out keep their
 * value; at least one is given. `followup_mode_changed` and `queue_auto_drain_changed`
 * say what changed.
 */
export const SetQueueModesRequest = z
  .strictObject({
    steeringMode: QueueMode.optional(),
    followUpMode: QueueMode.optional(),
    autoDrain: z.boolean().optional(),
  })
  .refine(
    (r) =>
      r.steeringMode !== undefined || r.followUpMode !== undefined || r.autoDrain !== undefined,
    { message: 'give steeringMode, followUpMode or autoDrain' },
  );
/** `set_queue_modes` request. */
export type SetQueueModesRequest = z.infer<typeof SetQueueModesRequest>;

/** Reply of `set_queue_modes`: the modes now, and whether anything changed. */
export const QueueModesReply = z.object({
  ok: z.literal(true),
  steeringMode: QueueMode,
  followUpMode: QueueMode,
  autoDrain: z.boolean(),
  changed: z.boolean(),
});
/** Reply of `set_queue_modes`. */
export type QueueModesReply = z.infer<typeof QueueModesReply>;

/** Operations on waiting inputs, answered on `aw.rt.<sid>.<op>` beside the runtime's `RUNTIME_OPS`. */
const INPUT_OPS = [
  'remove_input',
  'reorder_inputs',
  'move_input',
  'clear_inputs',
  'edit_input',
  'set_queue_modes',
] as const;
/** One input operation name. */
export type InputOp = (typeof INPUT_OPS)[number];

/** True for an input operation name. */
export function isInputOp(op: string): op is InputOp {
  return (INPUT_OPS as readonly string[]).includes(op);
}
