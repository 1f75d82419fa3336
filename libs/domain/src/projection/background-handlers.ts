import type {
  BackgroundTaskState,
  BackgroundTaskUpdatedPayload,
  SessionProjection,
} from '@agentwire/contracts';
import type { ProjectionHandlers } from './handler-table.ts';

function upsertTask(
  p: SessionProjection,
  payload: BackgroundTaskUpdatedPayload,
  at: number,
): SessionProjection {
  const tasks = p.backgroundTasks;
  const index = tasks.findIndex((t) => t.taskId === payload.taskId);
  const previous = index === -1 ? undefined : tasks[index];
  const task: BackgroundTaskState = { ...previous, ...definedFields(payload), updatedAt: at };
  const backgroundTasks = [...tasks];
  if (index === -1) backgroundTasks.push(task);
  else backgroundTasks[index] = task;
  return { ...p, backgroundTasks };
}

/** The payload without its `undefined` fields, so an update never erases a known value. */
function definedFields(payload: BackgroundTaskUpdatedPayload): BackgroundTaskUpdatedPayload {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (v !== undefined) out[k] = v;
  return out as BackgroundTaskUpdatedPayload;
}

/**
 * Background task handlers (R16.3): started, updated and completed each upsert the task by
 * id, merging the fields the event carries; finished tasks stay listed with their status.
 */
export const backgroundHandlers: ProjectionHandlers<
  'background_task_started' | 'background_task_updated' | 'background_task_completed'
> = {
  background_task_started: (p, e) => upsertTask(p, e.payload, e.timestamp),
  background_task_updated: (p, e) => upsertTask(p, e.payload, e.timestamp),
  background_task_completed: (p, e) => upsertTask(p, e.payload, e.timestamp),
};
