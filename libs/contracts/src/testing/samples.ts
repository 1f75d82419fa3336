/**
 * Valid sample payloads for every event type, for tests and property tests across the
 * project (exported from the package index as test helpers).
 */
import type { EventPayloadMap } from '../event-payloads.ts';
import type { EventType } from '../event-types.ts';
import type { SessionEventOf } from '../session-event.ts';

const error = { type: 'provider_error', message: 'upstream returned 503', retryable: true };
const usage = { inputTokens: 1200, outputTokens: 300, totalTokens: 1500, cacheReadTokens: 800 };
const hookRun = { hookRunId: 'hook-1', hookIndex: 0, hookEventName: 'PreToolUse' } as const;
const subagent = {
  agentId: 'agent-1',
  agentType: 'explorer',
  childSessionId: 'child-session-1',
  description: 'look for the config loader',
  parentToolCallId: 'call-9',
};
const compactOp = {
  operationId: 'compact-1',
  messageId: 'msg-compact-1',
  trigger: 'auto',
} as const;
const target = {
  targetId: 'target-1',
  objective: 'make the tests pass',
  summaryTitle: null,
  status: 'active',
  tokenBudget: null,
  tokensUsed: 0,
  timeUsedSeconds: 0,
} as const;

/** One valid payload per event type (R4.1); every entry parses against its schema. */
export const sampleEventPayloads: EventPayloadMap = {
  session_created: { title: 'Untitled session', parentSessionId: null, cwd: '/repo' },
  session_resumed: { reason: 'worker restart', discardedInputIds: [] },
  session_forked: { originalSessionId: 'session-0', forkedSessionId: 'session-1' },
  session_compacted: { boundaryId: 'boundary-1', postCompactTokenCount: 4000 },
  session_title_updated: {
    title: 'Fix the flaky test',
    previousTitle: null,
    source: 'first_input',
  },
  session_mode_changed: { mode: 'plan', previousMode: 'build', source: 'command' },
  session_ended: { reason: 'closed' },
  turn_started: { turnNumber: 1, input: 'fix the flaky test', inputId: 'input-1' },
  turn_complete: {
    response: 'Done.',
    tokenCount: 1500,
    usage,
    toolCallCount: 2,
    duration: 5300,
    resultType: 'success',
  },
  turn_error: { error, turnPhase: 'model_request' },
  turn_input_received: { input: 'also check the docs', inputId: 'input-2' },
  turn_steer_queued: {
    pendingInputId: 'input-2',
    input: 'also check the docs',
    inputPreview: 'also check the docs',
    inputSize: 19,
    delivery: 'queue',
    targetTurnId: 'turn-1',
    queueLength: 1,
  },
  turn_steer_delivery_changed: {
    pendingInputId: 'input-2',
    requestedDelivery: 'guide',
    admittedDelivery: 'queue',
    fallbackReasonCode: 'turn_not_steerable',
  },
  turn_steer_dispatch_changed: {
    pendingInputId: 'input-2',
    state: 'reserved',
    reservationId: 'reservation-1',
  },
  turn_steer_drained: {
    pendingInputIds: ['input-2'],
    injectedMessageIds: ['msg-2'],
    inputs: [{ pendingInputId: 'input-2', input: 'also check the docs' }],
  },
  turn_steer_rejected: { reason: 'empty_input', inputSize: 0 },
  turn_steer_discarded: { pendingInputId: 'input-2', reason: 'user_removed' },
  turn_steer_reordered: { orderedPendingInputIds: ['input-3', 'input-2'] },
  session_input_promoted: {
    pendingInputId: 'input-2',
    sourceCommandId: 'input-2',
    messageId: 'msg-2',
  },
  queue_auto_drain_changed: { enabled: false, reason: 'user paused the queue' },
  followup_mode_changed: {
    steeringMode: 'all',
    followUpMode: 'all',
    previousSteeringMode: 'all',
    previousFollowUpMode: 'one_at_a_time',
  },
  user_message: { messageId: 'msg-1', text: 'fix the flaky test' },
  assistant_message: { messageId: 'msg-a1', providerId: 'anthropic', modelId: 'claude-x' },
  assistant_feedback_updated: { messageId: 'msg-a1', feedback: 'positive' },
  system_message: { message: 'context is 90% full', level: 'warning' },
  model_request: {
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'fix the flaky test' },
    ],
    providerId: 'anthropic',
    modelId: 'claude-x',
    querySource: 'main_turn',
    toolCount: 12,
  },
  model_selected: {
    modelSelection: { providerId: 'anthropic', modelId: 'claude-x' },
    previousModelSelection: null,
    contextWindow: 200000,
  },
  model_streaming: { delta: 'Look', done: false, kind: 'text_delta', partId: 'part-1' },
  model_complete: {
    content: 'Looking at the test.',
    stopReason: 'tool_use',
    usage,
    querySource: 'main_turn',
    toolCallCount: 1,
  },
  model_error: { error, retryable: true },
  model_network_status: { status: 'streaming', elapsedMs: 120 },
  model_anomaly_warning: { kind: 'repetition', message: 'the same line repeated 20 times' },
  network_request_status: { requestId: 'req-1', status: 'completed', statusCode: 200 },
  streaming_tool_ledger_updated: {
    entries: [{ toolCallId: 'call-1', toolName: 'read_file', status: 'input_streaming' }],
  },
  stream_recovery_anchor_created: { attemptId: 'attempt-1', anchorId: 'anchor-1', offset: 120 },
  stream_recovery_started: {
    attemptId: 'attempt-1',
    failureKind: 'connection_reset',
    message: 'socket hang up',
    retryNumber: 1,
    maxRetries: 3,
  },
  stream_recovery_anchor_selected: { attemptId: 'attempt-1', anchorId: 'anchor-1' },
  stream_recovery_tail_discarded: { attemptId: 'attempt-1', discardedChars: 12 },
  stream_recovery_retry_started: { attemptId: 'attempt-1', retryNumber: 1 },
  stream_recovery_blocked: { attemptId: 'attempt-1', reason: 'running_side_effect' },
  tool_call_scheduled: {
    toolCallId: 'call-1',
    toolName: 'read_file',
    input: { path: 'src/index.ts' },
    schedule: { parallelGroups: [['call-1']], executionOrder: ['call-1'] },
  },
  tool_call_started: { toolCallId: 'call-1', toolName: 'read_file', startedAt: 1_700_000_000_000 },
  tool_call_progress: { toolCallId: 'call-1', elapsedMs: 50, outputBytes: 128 },
  tool_call_result: {
    toolCallId: 'call-1',
    result: { success: true, content: 'export {}', truncated: false },
    duration: 12,
  },
  tool_call_error: { toolCallId: 'call-2', error: { type: 'tool_error', message: 'not found' } },
  tool_batch_complete: { toolCallIds: ['call-1', 'call-2'], successCount: 1, errorCount: 1 },
  background_task_started: { taskId: 'task-1', status: 'running', taskKind: 'bash' },
  background_task_updated: { taskId: 'task-1', status: 'running', description: 'npm test' },
  background_task_completed: {
    taskId: 'task-1',
    status: 'completed',
    completedAt: 1_700_000_001_000,
  },
  dynamic_workflow_run_progress: {
    runId: 'run-1',
    status: 'running',
    completedSteps: 1,
    totalSteps: 3,
  },
  permission_requested: {
    toolCallId: 'call-3',
    toolName: 'bash',
    riskLevel: 'high',
    reason: 'runs a shell command',
    input: { command: 'rm -rf build' },
    requestId: 'perm-1',
  },
  permission_resolved: { toolCallId: 'call-3', decision: 'allow', requestId: 'perm-1' },
  permission_denied: { toolCallId: 'call-4', toolName: 'bash', reason: 'denied by policy' },
  user_input_auto_resolution_updated: {
    interactionId: 'interaction-1',
    toolCallId: 'call-3',
    autoResolution: {
      state: 'visibleCountdown',
      startedAt: 1_700_000_000_000,
      visibleAt: 1_700_000_005_000,
      deadlineAt: 1_700_000_035_000,
    },
  },
  workspace_hook_review_requested: {
    reviewId: 'review-1',
    hooks: [{ hookEventName: 'PreToolUse', command: './lint.sh' }],
  },
  workspace_hook_review_settled: { reviewId: 'review-1', decision: 'approved' },
  workspace_hook_review_superseded: { reviewId: 'review-1', supersededBy: 'review-2' },
  workspace_hook_admission_updated: { admission: 'allowed', reviewId: 'review-1' },
  hook_run_started: hookRun,
  hook_run_progress: { ...hookRun, message: 'linting' },
  hook_run_completed: { ...hookRun, outcome: 'success', durationMs: 40 },
  hook_run_failed: { ...hookRun, outcome: 'failed', error: { type: 'exit', message: 'exit 1' } },
  hook_run_blocked: { ...hookRun, outcome: 'blocked', reason: 'lint failed' },
  compact_started: { ...compactOp, status: 'started' },
  compact_completed: { ...compactOp, status: 'completed', boundaryId: 'boundary-1' },
  compact_failed: { ...compactOp, status: 'failed', error },
  compact_boundary: {
    boundaryId: 'boundary-1',
    trigger: 'auto',
    preCompactTokenCount: 180000,
    postCompactTokenCount: 4000,
    summarizedMessageCount: 40,
    summaryMessageIds: ['msg-summary-1'],
  },
  microcompact_boundary: { boundaryId: 'micro-1', clearedToolCallIds: ['call-1'] },
  rewind_triggered: {
    rewindId: 'rewind-1',
    scope: 'both',
    strategy: 'active_chain',
    targetCheckpointId: 'checkpoint-1',
  },
  checkpoint_created: {
    checkpointId: 'checkpoint-1',
    messageId: 'msg-1',
    snapshotRef: 'refs/aw/checkpoint-1',
    scope: 'workspace',
    fileCount: 3,
  },
  target_changed: { action: 'set', source: 'command', target },
  target_completion_verification: {
    targetId: 'target-1',
    verificationId: 'verification-1',
    status: 'completed',
    verification: { passed: false, reason: 'two tests still fail', nextAction: 'fix them' },
  },
  subagent_spawned: { ...subagent, status: 'running' },
  subagent_message: { ...subagent, status: 'running', text: 'found it in src/config.ts' },
  subagent_stopped: { ...subagent, status: 'completed', totals: { tokenCount: 9000 } },
  interrupt: { reason: 'user pressed escape' },
  cancel: { reason: 'user cancelled', inputId: 'input-2' },
  resume: {},
  error,
};

/** A fixed, valid W3C trace id for tests. */
export const SAMPLE_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Envelope fields a test may override in {@link sampleSessionEvent}. */
export interface SampleEventOverrides {
  readonly id?: string;
  readonly sessionId?: string;
  readonly turnId?: string | null;
  readonly timestamp?: number;
  readonly traceId?: string;
  readonly sequenceNumber?: number;
}

/**
 * A valid event of `type` with its sample payload. Without overrides it belongs to session
 * `session-1`, turn `turn-1`, at sequence number 0 (R2.2).
 */
export function sampleSessionEvent<T extends EventType>(
  type: T,
  overrides: SampleEventOverrides = {},
): SessionEventOf<T> {
  const event = {
    id: overrides.id ?? `evt-${type}`,
    sessionId: overrides.sessionId ?? 'session-1',
    turnId: overrides.turnId === undefined ? 'turn-1' : overrides.turnId,
    type,
    timestamp: overrides.timestamp ?? 1_700_000_000_000,
    traceId: overrides.traceId ?? SAMPLE_TRACE_ID,
    sequenceNumber: overrides.sequenceNumber ?? 0,
    payload: sampleEventPayloads[type],
  };
  return event as SessionEventOf<T>;
}
