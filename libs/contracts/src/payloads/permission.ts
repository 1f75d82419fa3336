/** Payload schemas of the permission and interaction events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { EpochMs, JsonValue } from './common.ts';

/** Risk of a tool call that needs approval (R16.2). */
export const RiskLevel = z.enum(['low', 'medium', 'high', 'critical']);
/** Risk of a tool call. */
export type RiskLevel = z.infer<typeof RiskLevel>;

/** `permission_requested` (R16.2, R1.4). */
export const PermissionRequestedPayload = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  riskLevel: RiskLevel,
  reason: z.string(),
  input: JsonValue,
  requestId: z.string().optional(),
});
export type PermissionRequestedPayload = z.infer<typeof PermissionRequestedPayload>;

/** A decision on a permission request (R16.2). */
export const PermissionDecision = z.enum(['allow', 'deny', 'escalate', 'modify']);
/** A decision on a permission request. */
export type PermissionDecision = z.infer<typeof PermissionDecision>;

/** `permission_resolved` (R16.2): deny marks the call denied, else completed (R16.3). */
export const PermissionResolvedPayload = z.object({
  toolCallId: z.string(),
  decision: PermissionDecision,
  requestId: z.string().optional(),
  reason: z.string().optional(),
  modifiedInput: JsonValue.optional(),
});
export type PermissionResolvedPayload = z.infer<typeof PermissionResolvedPayload>;

/**
 * `permission_denied` (R16.2): the request ends without an allow, whatever ended it (a
 * denial, the timeout, an interrupt, a lost runtime). `requestId` is ours (additive): the
 * id a frontend answered by, so it can clear that question (docs/decisions/0120).
 */
export const PermissionDeniedPayload = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  reason: z.string(),
  requestId: z.string().optional(),
});
export type PermissionDeniedPayload = z.infer<typeof PermissionDeniedPayload>;

/** The auto-resolution timer of an interaction (R16.2), discriminated on `state`. */
const AutoResolution = z.discriminatedUnion('state', [
  z.object({
    state: z.enum(['hiddenGrace', 'visibleCountdown']),
    startedAt: EpochMs,
    visibleAt: EpochMs,
    deadlineAt: EpochMs,
  }),
  z.object({ state: z.literal('snoozed'), startedAt: EpochMs, snoozedAt: EpochMs }),
]);

/**
 * `user_input_auto_resolution_updated` (R16.2); durable (R6): overwrites the entry of its
 * `interactionId`. `autoResolution: null` clears the timer (ours).
 */
export const UserInputAutoResolutionUpdatedPayload = z.object({
  interactionId: z.string(),
  toolCallId: z.string(),
  autoResolution: AutoResolution.nullable(),
});
/** Payload of `user_input_auto_resolution_updated`. */
export type UserInputAutoResolutionUpdatedPayload = z.infer<
  typeof UserInputAutoResolutionUpdatedPayload
>;
