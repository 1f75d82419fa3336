/**
 * Payload schemas of the ten input-queue events: the seven steer events and
 * `session_input_promoted` of R14.4, and two toggles of ours.
 */
import { z } from 'zod';
import { Attachment, Count, LedgerDelivery } from './common.ts';

/**
 * `turn_steer_queued` (R14.4): an input was admitted to the ledger as `admitted` (R6).
 * `inputSize` is the input's size in bytes (UTF-8); `inputPreview` a short prefix (ours).
 */
export const TurnSteerQueuedPayload = z.object({
  pendingInputId: z.string(),
  input: z.string(),
  attachments: z.array(Attachment).optional(),
  inputPreview: z.string(),
  inputSize: Count,
  delivery: LedgerDelivery,
  /** The turn the input was aimed at; null when no turn was running. */
  targetTurnId: z.string().nullable(),
  queueLength: Count,
});
export type TurnSteerQueuedPayload = z.infer<typeof TurnSteerQueuedPayload>;

/**
 * `turn_steer_delivery_changed` (R14.4): a `guide` request was admitted as `queue`. The
 * ledger row's delivery is updated (R6). Both modes are typed as any delivery (ours).
 */
export const TurnSteerDeliveryChangedPayload = z.object({
  pendingInputId: z.string(),
  requestedDelivery: LedgerDelivery,
  admittedDelivery: LedgerDelivery,
  fallbackReasonCode: z.string(),
});
export type TurnSteerDeliveryChangedPayload = z.infer<typeof TurnSteerDeliveryChangedPayload>;

/** `turn_steer_dispatch_changed` (R14.4). */
export const TurnSteerDispatchChangedPayload = z.object({
  pendingInputId: z.string(),
  state: z.enum(['queued', 'reserved', 'promoting']),
  reservationId: z.string().nullable(),
});
export type TurnSteerDispatchChangedPayload = z.infer<typeof TurnSteerDispatchChangedPayload>;

/** One drained input (R14.4 `drained`). */
const DrainedInput = z.object({
  pendingInputId: z.string(),
  input: z.string(),
});

/** `turn_steer_drained` (R14.4): guided inputs inlined into the running turn. */
export const TurnSteerDrainedPayload = z.object({
  pendingInputIds: z.array(z.string()),
  injectedMessageIds: z.array(z.string()),
  inputs: z.array(DrainedInput),
});
export type TurnSteerDrainedPayload = z.infer<typeof TurnSteerDrainedPayload>;

/** Why an input was rejected at admission (R14.4). */
export const SteerRejectReason = z.enum([
  'no_active_turn',
  'expected_turn_mismatch',
  'turn_not_steerable',
  'empty_input',
  'input_too_large',
]);
/** Why an input was rejected at admission. */
export type SteerRejectReason = z.infer<typeof SteerRejectReason>;

/** `turn_steer_rejected` (R14.4). A rejected input never got a ledger row (ours). */
export const TurnSteerRejectedPayload = z.object({
  reason: SteerRejectReason,
  /** The command id of the rejected submission, when known (ours). */
  commandId: z.string().optional(),
  inputPreview: z.string().optional(),
  inputSize: Count.optional(),
});
export type TurnSteerRejectedPayload = z.infer<typeof TurnSteerRejectedPayload>;

/**
 * Why a queued input left the queue without running by itself (R14.4), and (ours)
 * `start_failed`: accepted, but its user message could not be committed, so its turn never
 * ran (the ledger row ends `failed`, R14.2; issue 9); `user_cleared`: a user cleared the
 * whole queue (issue 11; the row ends `cancelled` like `user_removed`).
 */
export const SteerDiscardReason = z.enum([
  'turn_cancelled',
  'turn_failed',
  'session_resumed',
  'user_removed',
  'user_cleared',
  'promoted',
  'start_failed',
]);
/** Why a queued input left the queue. */
export type SteerDiscardReason = z.infer<typeof SteerDiscardReason>;

/**
 * `turn_steer_discarded` (R14.4): the ledger row is closed as `cancelled` or `discarded`,
 * and left untouched when the reason is `promoted` (R6).
 */
export const TurnSteerDiscardedPayload = z.object({
  pendingInputId: z.string(),
  reason: SteerDiscardReason,
});
export type TurnSteerDiscardedPayload = z.infer<typeof TurnSteerDiscardedPayload>;

/** `turn_steer_reordered` (R14.4): the full new order of pending inputs. */
export const TurnSteerReorderedPayload = z.object({
  orderedPendingInputIds: z.array(z.string()),
});
export type TurnSteerReorderedPayload = z.infer<typeof TurnSteerReorderedPayload>;

/** `session_input_promoted` (R14.4), emitted only after the promotion commit (R7.3). */
export const SessionInputPromotedPayload = z.object({
  pendingInputId: z.string(),
  sourceCommandId: z.string(),
  messageId: z.string(),
});
export type SessionInputPromotedPayload = z.infer<typeof SessionInputPromotedPayload>;

/** `queue_auto_drain_changed` (ours): whether queued inputs start turns by themselves. */
export const QueueAutoDrainChangedPayload = z.object({
  enabled: z.boolean(),
  reason: z.string().optional(),
});
export type QueueAutoDrainChangedPayload = z.infer<typeof QueueAutoDrainChangedPayload>;

/**
 * How a lane hands its actions over (R12.2, docs/decisions/0235): `all` takes every
 * consecutive action of the lane at once (one batch), `one_at_a_time` one per turn
 * (`followUp`) or per step boundary (`steering`).
 */
export const QueueMode = z.enum(['all', 'one_at_a_time']);
/** How a lane hands its actions over. */
export type QueueMode = z.infer<typeof QueueMode>;

/**
 * `followup_mode_changed` (ours, docs/decisions/0235): the two lanes' modes now, and before.
 * Both are stated each time, so the last one alone rebuilds them.
 */
export const FollowupModeChangedPayload = z.object({
  steeringMode: QueueMode,
  followUpMode: QueueMode,
  previousSteeringMode: QueueMode,
  previousFollowUpMode: QueueMode,
});
export type FollowupModeChangedPayload = z.infer<typeof FollowupModeChangedPayload>;
