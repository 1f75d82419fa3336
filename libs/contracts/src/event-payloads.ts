/**
 * The payload schema of every event type (SPEC.md R4.1), and the payload type per type.
 */
import type { z } from 'zod';
import type { EventType } from './event-types.ts';
import {
  BackgroundTaskCompletedPayload,
  BackgroundTaskStartedPayload,
  BackgroundTaskUpdatedPayload,
  DynamicWorkflowRunProgressPayload,
} from './payloads/background.ts';
import { ErrorPayload } from './payloads/common.ts';
import {
  CompactBoundaryPayload,
  CompactCompletedPayload,
  CompactFailedPayload,
  CompactStartedPayload,
  MicrocompactBoundaryPayload,
} from './payloads/compaction.ts';
import { CancelPayload, InterruptPayload, ResumePayload } from './payloads/control.ts';
import {
  HookRunBlockedPayload,
  HookRunCompletedPayload,
  HookRunFailedPayload,
  HookRunProgressPayload,
  HookRunStartedPayload,
  WorkspaceHookAdmissionUpdatedPayload,
  WorkspaceHookReviewRequestedPayload,
  WorkspaceHookReviewSettledPayload,
  WorkspaceHookReviewSupersededPayload,
} from './payloads/hooks.ts';
import {
  FollowupModeChangedPayload,
  QueueAutoDrainChangedPayload,
  SessionInputPromotedPayload,
  TurnSteerDeliveryChangedPayload,
  TurnSteerDiscardedPayload,
  TurnSteerDispatchChangedPayload,
  TurnSteerDrainedPayload,
  TurnSteerQueuedPayload,
  TurnSteerRejectedPayload,
  TurnSteerReorderedPayload,
} from './payloads/input-queue.ts';
import {
  AssistantFeedbackUpdatedPayload,
  AssistantMessagePayload,
  SystemMessagePayload,
  UserMessagePayload,
} from './payloads/messages.ts';
import {
  ModelAnomalyWarningPayload,
  ModelCompletePayload,
  ModelErrorPayload,
  ModelNetworkStatusPayload,
  ModelRequestPayload,
  ModelSelectedPayload,
  ModelStreamingPayload,
  NetworkRequestStatusPayload,
  StreamingToolLedgerUpdatedPayload,
  StreamRecoveryAnchorCreatedPayload,
  StreamRecoveryAnchorSelectedPayload,
  StreamRecoveryBlockedPayload,
  StreamRecoveryRetryStartedPayload,
  StreamRecoveryStartedPayload,
  StreamRecoveryTailDiscardedPayload,
} from './payloads/model.ts';
import {
  PermissionDeniedPayload,
  PermissionRequestedPayload,
  PermissionResolvedPayload,
  UserInputAutoResolutionUpdatedPayload,
} from './payloads/permission.ts';
import { CheckpointCreatedPayload, RewindTriggeredPayload } from './payloads/rewind-checkpoint.ts';
import {
  SessionCompactedPayload,
  SessionCreatedPayload,
  SessionEndedPayload,
  SessionForkedPayload,
  SessionModeChangedPayload,
  SessionResumedPayload,
  SessionTitleUpdatedPayload,
} from './payloads/session.ts';
import {
  SubagentMessagePayload,
  SubagentSpawnedPayload,
  SubagentStoppedPayload,
} from './payloads/subagent.ts';
import { TargetChangedPayload, TargetCompletionVerificationPayload } from './payloads/target.ts';
import {
  ToolBatchCompletePayload,
  ToolCallErrorPayload,
  ToolCallProgressPayload,
  ToolCallResultPayload,
  ToolCallScheduledPayload,
  ToolCallStartedPayload,
} from './payloads/tools.ts';
import {
  TurnCompletePayload,
  TurnErrorPayload,
  TurnInputReceivedPayload,
  TurnStartedPayload,
} from './payloads/turn.ts';

/**
 * One zod schema per event type (R4.1). The `satisfies` clause makes a missing or misspelt
 * type a compile error while keeping each entry's precise schema type.
 */
export const EVENT_PAYLOAD_SCHEMAS = {
  session_created: SessionCreatedPayload,
  session_resumed: SessionResumedPayload,
  session_forked: SessionForkedPayload,
  session_compacted: SessionCompactedPayload,
  session_title_updated: SessionTitleUpdatedPayload,
  session_mode_changed: SessionModeChangedPayload,
  session_ended: SessionEndedPayload,
  turn_started: TurnStartedPayload,
  turn_complete: TurnCompletePayload,
  turn_error: TurnErrorPayload,
  turn_input_received: TurnInputReceivedPayload,
  turn_steer_queued: TurnSteerQueuedPayload,
  turn_steer_delivery_changed: TurnSteerDeliveryChangedPayload,
  turn_steer_dispatch_changed: TurnSteerDispatchChangedPayload,
  turn_steer_drained: TurnSteerDrainedPayload,
  turn_steer_rejected: TurnSteerRejectedPayload,
  turn_steer_discarded: TurnSteerDiscardedPayload,
  turn_steer_reordered: TurnSteerReorderedPayload,
  session_input_promoted: SessionInputPromotedPayload,
  queue_auto_drain_changed: QueueAutoDrainChangedPayload,
  followup_mode_changed: FollowupModeChangedPayload,
  user_message: UserMessagePayload,
  assistant_message: AssistantMessagePayload,
  assistant_feedback_updated: AssistantFeedbackUpdatedPayload,
  system_message: SystemMessagePayload,
  model_request: ModelRequestPayload,
  model_selected: ModelSelectedPayload,
  model_streaming: ModelStreamingPayload,
  model_complete: ModelCompletePayload,
  model_error: ModelErrorPayload,
  model_network_status: ModelNetworkStatusPayload,
  model_anomaly_warning: ModelAnomalyWarningPayload,
  network_request_status: NetworkRequestStatusPayload,
  streaming_tool_ledger_updated: StreamingToolLedgerUpdatedPayload,
  stream_recovery_anchor_created: StreamRecoveryAnchorCreatedPayload,
  stream_recovery_started: StreamRecoveryStartedPayload,
  stream_recovery_anchor_selected: StreamRecoveryAnchorSelectedPayload,
  stream_recovery_tail_discarded: StreamRecoveryTailDiscardedPayload,
  stream_recovery_retry_started: StreamRecoveryRetryStartedPayload,
  stream_recovery_blocked: StreamRecoveryBlockedPayload,
  tool_call_scheduled: ToolCallScheduledPayload,
  tool_call_started: ToolCallStartedPayload,
  tool_call_progress: ToolCallProgressPayload,
  tool_call_result: ToolCallResultPayload,
  tool_call_error: ToolCallErrorPayload,
  tool_batch_complete: ToolBatchCompletePayload,
  background_task_started: BackgroundTaskStartedPayload,
  background_task_updated: BackgroundTaskUpdatedPayload,
  background_task_completed: BackgroundTaskCompletedPayload,
  dynamic_workflow_run_progress: DynamicWorkflowRunProgressPayload,
  permission_requested: PermissionRequestedPayload,
  permission_resolved: PermissionResolvedPayload,
  permission_denied: PermissionDeniedPayload,
  user_input_auto_resolution_updated: UserInputAutoResolutionUpdatedPayload,
  workspace_hook_review_requested: WorkspaceHookReviewRequestedPayload,
  workspace_hook_review_settled: WorkspaceHookReviewSettledPayload,
  workspace_hook_review_superseded: WorkspaceHookReviewSupersededPayload,
  workspace_hook_admission_updated: WorkspaceHookAdmissionUpdatedPayload,
  hook_run_started: HookRunStartedPayload,
  hook_run_progress: HookRunProgressPayload,
  hook_run_completed: HookRunCompletedPayload,
  hook_run_failed: HookRunFailedPayload,
  hook_run_blocked: HookRunBlockedPayload,
  compact_started: CompactStartedPayload,
  compact_completed: CompactCompletedPayload,
  compact_failed: CompactFailedPayload,
  compact_boundary: CompactBoundaryPayload,
  microcompact_boundary: MicrocompactBoundaryPayload,
  rewind_triggered: RewindTriggeredPayload,
  checkpoint_created: CheckpointCreatedPayload,
  target_changed: TargetChangedPayload,
  target_completion_verification: TargetCompletionVerificationPayload,
  subagent_spawned: SubagentSpawnedPayload,
  subagent_message: SubagentMessagePayload,
  subagent_stopped: SubagentStoppedPayload,
  interrupt: InterruptPayload,
  cancel: CancelPayload,
  resume: ResumePayload,
  error: ErrorPayload,
} as const satisfies { readonly [K in EventType]: z.ZodType };

/** The payload type of event type `T`, as produced by parsing (R2.1). */
export type EventPayload<T extends EventType> = z.output<(typeof EVENT_PAYLOAD_SCHEMAS)[T]>;

/** A payload map: one valid payload per event type (used by samples and tests). */
export type EventPayloadMap = { [K in EventType]: EventPayload<K> };
