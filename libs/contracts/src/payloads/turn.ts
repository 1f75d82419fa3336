/** Payload schemas of the four turn events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import {
  Attachment,
  Count,
  DurationMs,
  ErrorPayload,
  ModelUsage,
  SyntheticSource,
} from './common.ts';

/** `turn_started` (R16.2); the reducer sets status running and turn count + 1 (R16.3). */
export const TurnStartedPayload = z.object({
  turnNumber: Count,
  input: z.string(),
  messageId: z.string().optional(),
  /** The ledger id of the input that started the turn (R14.1). */
  inputId: z.string().optional(),
  /** Set when the turn was started by a synthetic notice (R8.1). */
  inputSource: SyntheticSource.optional(),
  inputVisibility: z.enum(['user-visible', 'model-only']).optional(),
  executionKind: z.enum(['agent', 'controlOnly']).optional(),
  attachments: z.array(Attachment).optional(),
});
export type TurnStartedPayload = z.infer<typeof TurnStartedPayload>;

/** How a turn ended (R16.2 `turn_complete.resultType`). */
const TurnResultType = z.enum([
  'success',
  'cancelled',
  'error_max_turns',
  'error_max_budget',
  'error_during_execution',
  'error_max_tool_calls',
]);

/** `turn_complete` (R16.2): seals the turn (R3.4). `duration` is in milliseconds. */
export const TurnCompletePayload = z.object({
  response: z.string(),
  tokenCount: Count,
  usage: ModelUsage.optional(),
  toolCallCount: Count,
  duration: DurationMs,
  inputId: z.string().optional(),
  resultType: TurnResultType,
});
export type TurnCompletePayload = z.infer<typeof TurnCompletePayload>;

/**
 * Why a turn ended before its model was done (ours, docs/decisions/0120): `interrupted` (an
 * interrupt, a shutdown, a failure of the runtime driving it) or `runtime_lost` (its runtime
 * died and the next owner closed it). It is the `reason` of the `permission_denied` of each
 * request the turn left open and the error `code` of what the turn left unfinished.
 */
export const EarlyTurnEnd = z.enum(['interrupted', 'runtime_lost']);
/** Why a turn ended early. */
export type EarlyTurnEnd = z.infer<typeof EarlyTurnEnd>;

/** `turn_error` (R16.2): seals the turn (R3.4). `turnPhase` is free text (ours). */
export const TurnErrorPayload = z.object({
  error: ErrorPayload,
  turnPhase: z.string(),
  inputId: z.string().optional(),
});
export type TurnErrorPayload = z.infer<typeof TurnErrorPayload>;

/**
 * `turn_input_received` (ours, issue 11 item 4, docs/decisions/0233): a submission reached
 * the session's owning runtime, before normalisation; `input` is its first 2,000
 * characters, `inputSize` its size in UTF-8 bytes. Session-level (no turn).
 */
export const TurnInputReceivedPayload = z.object({
  input: z.string(),
  inputId: z.string().optional(),
  inputSize: Count.optional(),
  messageId: z.string().optional(),
});
export type TurnInputReceivedPayload = z.infer<typeof TurnInputReceivedPayload>;
