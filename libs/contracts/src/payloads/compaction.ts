/** Payload schemas of the five compaction events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { Count, ErrorPayload } from './common.ts';

/** What triggered a compaction (R16.2). */
export const CompactTrigger = z.enum(['manual', 'auto', 'partial', 'reactive', 'session_memory']);
/** What triggered a compaction. */
export type CompactTrigger = z.infer<typeof CompactTrigger>;

/** Status of a compaction operation (ours: R16.2 names the field, not its values). */
const CompactStatus = z.enum(['started', 'completed', 'failed']);

const compactFields = {
  operationId: z.string(),
  messageId: z.string(),
  status: CompactStatus,
  trigger: CompactTrigger,
  reason: z.string().optional(),
  boundaryId: z.string().optional(),
};

/** `compact_started` (R16.2). */
export const CompactStartedPayload = z.object(compactFields);
export type CompactStartedPayload = z.infer<typeof CompactStartedPayload>;

/** `compact_completed` (R16.2). */
export const CompactCompletedPayload = z.object(compactFields);
export type CompactCompletedPayload = z.infer<typeof CompactCompletedPayload>;

/** `compact_failed` (R16.2; `error` is ours). */
export const CompactFailedPayload = z.object({ ...compactFields, error: ErrorPayload.optional() });
export type CompactFailedPayload = z.infer<typeof CompactFailedPayload>;

/**
 * `compact_boundary` (R16.2): the reducer sets context usage to the post-compaction count
 * (R16.3).
 */
export const CompactBoundaryPayload = z.object({
  boundaryId: z.string(),
  trigger: CompactTrigger,
  preCompactTokenCount: Count,
  postCompactTokenCount: Count.optional(),
  summarizedMessageCount: Count,
  keptMessageCount: Count.optional(),
  summaryMessageIds: z.array(z.string()),
});
export type CompactBoundaryPayload = z.infer<typeof CompactBoundaryPayload>;

/** `microcompact_boundary` (ours): old tool outputs were cleared from the context. */
export const MicrocompactBoundaryPayload = z.object({
  boundaryId: z.string(),
  clearedToolCallIds: z.array(z.string()),
  preCompactTokenCount: Count.optional(),
  postCompactTokenCount: Count.optional(),
});
export type MicrocompactBoundaryPayload = z.infer<typeof MicrocompactBoundaryPayload>;
