/** Payload schemas of the seven session events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { SessionMode, TitleSource } from './common.ts';

/**
 * `session_created` (ours: SPEC gives no fields). Synthesised by the protocol layer on
 * cold recovery (R4.3), or emitted when a session row is born (R13.2).
 */
export const SessionCreatedPayload = z.object({
  title: z.string().optional(),
  /** Parent session of a child (sub-agent) session; null for a root session. */
  parentSessionId: z.string().nullable().optional(),
  cwd: z.string().optional(),
  root: z.string().optional(),
  /** Task type (R9.5): absent or `interactive` for interactive sessions. */
  taskType: z.string().optional(),
  mode: SessionMode.optional(),
  /** True when synthesised on cold recovery (R4.3). */
  recovered: z.boolean().optional(),
});
export type SessionCreatedPayload = z.infer<typeof SessionCreatedPayload>;

/**
 * `session_resumed` (ours): the first event of every load of a session that has history,
 * by the runtime that made it resident (docs/decisions/0110: it is also the fence that shuts
 * every earlier writer out of `ev`). On resume every leftover `admitted` ledger row becomes
 * `discarded(session_resumed)` (R14.2); their ids are listed here.
 */
export const SessionResumedPayload = z.object({
  /** `takeover` (another instance held it) or `cold_recovery` (nobody did). */
  reason: z.string().optional(),
  discardedInputIds: z.array(z.string()).optional(),
  /** The instance that resumed the session. */
  owner: z.string().optional(),
  /** The instance whose lease was taken over, when one was. */
  previousOwner: z.string().optional(),
});
export type SessionResumedPayload = z.infer<typeof SessionResumedPayload>;

/** `session_forked` (R16.2). */
export const SessionForkedPayload = z.object({
  originalSessionId: z.string(),
  forkedSessionId: z.string().optional(),
  targetMessageId: z.string().optional(),
});
export type SessionForkedPayload = z.infer<typeof SessionForkedPayload>;

/**
 * `session_compacted` (ours: names borrowed from `compact_boundary`). Handled by the
 * reducer (R16.3): the post-compaction token count becomes the context usage when given.
 */
export const SessionCompactedPayload = z.object({
  boundaryId: z.string().optional(),
  preCompactTokenCount: z.number().int().nonnegative().optional(),
  postCompactTokenCount: z.number().int().nonnegative().optional(),
  summaryMessageId: z.string().optional(),
});
export type SessionCompactedPayload = z.infer<typeof SessionCompactedPayload>;

/**
 * `session_title_updated` (R16.2, R9.2, R16.5): emitted only when title or source changed.
 * `previousTitle` is null when the session had no title yet (ours).
 */
export const SessionTitleUpdatedPayload = z.object({
  title: z.string(),
  previousTitle: z.string().nullable(),
  source: TitleSource,
  messageId: z.string().optional(),
});
export type SessionTitleUpdatedPayload = z.infer<typeof SessionTitleUpdatedPayload>;

/** `session_mode_changed` (R16.2). */
export const SessionModeChangedPayload = z.object({
  mode: SessionMode,
  previousMode: SessionMode,
  source: z.enum(['tool', 'command', 'system']),
});
export type SessionModeChangedPayload = z.infer<typeof SessionModeChangedPayload>;

/** `session_ended` (ours). */
export const SessionEndedPayload = z.object({
  reason: z.enum(['completed', 'cancelled', 'error', 'closed']),
});
export type SessionEndedPayload = z.infer<typeof SessionEndedPayload>;
