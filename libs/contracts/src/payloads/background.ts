/** Payload schemas of the background task and workflow events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { Count, EpochMs } from './common.ts';

/** Status of a background task (R16.2). */
export const BackgroundTaskStatus = z.enum([
  'running',
  'completed',
  'failed',
  'timed_out',
  'cancelled',
  'spawn_error',
  'lost',
]);
/** Status of a background task. */
export type BackgroundTaskStatus = z.infer<typeof BackgroundTaskStatus>;

/** Terminal statuses: every status but `running` (R16.2: completed is never running). */
const BackgroundTaskTerminalStatus = BackgroundTaskStatus.exclude(['running']);

const taskFields = {
  taskId: z.string(),
  taskKind: z.enum(['bash', 'subagent', 'workflow']).optional(),
  toolCallId: z.string().optional(),
  command: z.string().optional(),
  description: z.string().optional(),
  startedAt: EpochMs.optional(),
  completedAt: EpochMs.optional(),
};

/** `background_task_started` (R16.2): status is always `running`. */
export const BackgroundTaskStartedPayload = z.object({
  ...taskFields,
  status: z.literal('running'),
});
export type BackgroundTaskStartedPayload = z.infer<typeof BackgroundTaskStartedPayload>;

/** `background_task_updated` (R16.2): any status. */
export const BackgroundTaskUpdatedPayload = z.object({
  ...taskFields,
  status: BackgroundTaskStatus,
});
export type BackgroundTaskUpdatedPayload = z.infer<typeof BackgroundTaskUpdatedPayload>;

/** `background_task_completed` (R16.2): never `running`. */
export const BackgroundTaskCompletedPayload = z.object({
  ...taskFields,
  status: BackgroundTaskTerminalStatus,
});
export type BackgroundTaskCompletedPayload = z.infer<typeof BackgroundTaskCompletedPayload>;

/** `dynamic_workflow_run_progress` (ours): progress of a workflow run. */
export const DynamicWorkflowRunProgressPayload = z.object({
  runId: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  workflowName: z.string().optional(),
  step: z.string().optional(),
  completedSteps: Count.optional(),
  totalSteps: Count.optional(),
  message: z.string().optional(),
});
export type DynamicWorkflowRunProgressPayload = z.infer<typeof DynamicWorkflowRunProgressPayload>;
