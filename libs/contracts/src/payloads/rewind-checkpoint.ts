/** Payload schemas of `rewind_triggered` and `checkpoint_created` (R16.2); both durable (R6). */
import { z } from 'zod';
import { Count, WorkspaceScope } from './common.ts';

/** How a rewind is carried out (R16.2). */
const RewindStrategy = z.enum(['active_chain', 'file_only', 'fork_required', 'unavailable']);

/** `rewind_triggered` (R16.2); written to entry `runtime/workspace_file_rewind` (R6). */
export const RewindTriggeredPayload = z.object({
  rewindId: z.string(),
  scope: WorkspaceScope,
  strategy: RewindStrategy,
  targetMessageId: z.string().optional(),
  targetCheckpointId: z.string().optional(),
  reason: z.string().optional(),
});
export type RewindTriggeredPayload = z.infer<typeof RewindTriggeredPayload>;

/** `checkpoint_created` (R16.2); written to entry `runtime/workspace_checkpoint` (R6). */
export const CheckpointCreatedPayload = z.object({
  checkpointId: z.string(),
  messageId: z.string(),
  snapshotRef: z.string(),
  scope: WorkspaceScope,
  fileCount: Count.optional(),
});
export type CheckpointCreatedPayload = z.infer<typeof CheckpointCreatedPayload>;
