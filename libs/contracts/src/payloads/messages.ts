/**
 * Payload schemas of the four message events (ours: SPEC gives no fields). Message
 * content travels as persistence writes (R4.2, R7); these events only point at messages.
 */
import { z } from 'zod';

/** `user_message` (ours): a user message was persisted. `text` is an optional preview. */
export const UserMessagePayload = z.object({
  messageId: z.string(),
  text: z.string().optional(),
  synthetic: z.boolean().optional(),
});
export type UserMessagePayload = z.infer<typeof UserMessagePayload>;

/** `assistant_message` (ours): an assistant message was persisted. */
export const AssistantMessagePayload = z.object({
  messageId: z.string(),
  text: z.string().optional(),
  providerId: z.string().optional(),
  modelId: z.string().optional(),
});
export type AssistantMessagePayload = z.infer<typeof AssistantMessagePayload>;

/** `assistant_feedback_updated` (ours): the user rated an assistant message; null clears. */
export const AssistantFeedbackUpdatedPayload = z.object({
  messageId: z.string(),
  feedback: z.enum(['positive', 'negative']).nullable(),
  comment: z.string().optional(),
});
export type AssistantFeedbackUpdatedPayload = z.infer<typeof AssistantFeedbackUpdatedPayload>;

/** `system_message` (ours): a notice from the runtime to the frontends. */
export const SystemMessagePayload = z.object({
  message: z.string(),
  level: z.enum(['info', 'warning', 'error']).optional(),
});
export type SystemMessagePayload = z.infer<typeof SystemMessagePayload>;
