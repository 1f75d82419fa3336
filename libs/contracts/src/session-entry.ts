/** Session entries: small durable records beside messages (SPEC.md R6, R16.4). */
import { z } from 'zod';
import { EpochMs, JsonValue } from './payloads/common.ts';

/** The known entry types of R16.4. */
export const SessionEntryType = z.enum([
  'target_completion_verification',
  'runtime/model_selection',
  'runtime/execution_state',
  'runtime/user_input_auto_resolution',
  'runtime/workspace_checkpoint',
  'runtime/workspace_file_rewind',
]);
/** A known entry type. */
export type SessionEntryType = z.infer<typeof SessionEntryType>;

/**
 * A session entry (R6, R16.4). Unique on the producing event id; the auto-resolution entry
 * is keyed (and overwritten) by its interaction id (`key`).
 */
export const SessionEntry = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  type: SessionEntryType,
  /** Upsert key within (session, type); null when every entry is its own row. */
  key: z.string().nullable(),
  /** The event that produced the entry (R6). */
  eventId: z.string(),
  sequenceNumber: z.number().int().nonnegative(),
  data: JsonValue,
  createdAt: EpochMs,
});
/** A session entry. */
export type SessionEntry = z.infer<typeof SessionEntry>;
