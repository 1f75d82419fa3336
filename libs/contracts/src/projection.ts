/**
 * The session projection of SPEC.md R10.2 and R16.3: the state of one session at one moment,
 * reduced from its events by `@agentwire/domain`'s reducer. Every field has a default, so
 * `SessionProjection.parse({ id, createdAt, updatedAt })` is the projection of a session
 * that has seen no event yet.
 *
 * R16.3 marks the `last*`, `target` and `currentTurnId` fields optional; here they are
 * nullable and always present (null until set), so that a projection round-trips through
 * JSON unchanged and two projections compare field by field (docs/decisions/0020).
 */
import { z } from 'zod';
import { BackgroundTaskStatus } from './payloads/background.ts';
import {
  Count,
  EpochMs,
  ErrorPayload,
  JsonValue,
  LedgerDelivery,
  SessionMode,
  TitleSource,
} from './payloads/common.ts';
import { CompactTrigger } from './payloads/compaction.ts';
import { QueueMode } from './payloads/input-queue.ts';
import { StreamingToolLedgerEntry, StreamRecoveryAnchorCreatedPayload } from './payloads/model.ts';
import { RiskLevel } from './payloads/permission.ts';
import { CheckpointCreatedPayload, RewindTriggeredPayload } from './payloads/rewind-checkpoint.ts';
import {
  Target,
  TargetCompletionVerificationPayload,
  TargetVerification,
} from './payloads/target.ts';

/** The default context window of a new session, in tokens (R16.3). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** Session status (R16.3). */
export const SessionStatus = z.enum(['idle', 'running', 'waiting', 'paused', 'completed', 'error']);

/** A permission request awaiting an answer (R16.3 `pendingPermissions`). */
export const PendingPermission = z.object({
  requestId: z.string().optional(),
  toolCallId: z.string(),
  toolName: z.string(),
  reason: z.string().optional(),
  riskLevel: RiskLevel,
  input: JsonValue.optional(),
  requestedAt: EpochMs,
});
/** A permission request awaiting an answer. */
export type PendingPermission = z.infer<typeof PendingPermission>;

/**
 * A queued input (R16.3 `pendingSteerInputs`, R10.3). `delivery` is ours: it is what
 * `turn_steer_delivery_changed` updates (R14.4).
 */
export const PendingSteerInput = z.object({
  pendingInputId: z.string(),
  input: z.string(),
  inputPreview: z.string(),
  inputSize: Count,
  queuedAt: EpochMs,
  targetTurnId: z.string().nullable(),
  traceId: z.string(),
  delivery: LedgerDelivery,
  /**
   * Ours (docs/decisions/0235): where its dispatch is, as the last
   * `turn_steer_dispatch_changed` said (`reserved` while the scheduler holds it,
   * `promoting` while its message is written); `queued` until then.
   */
  dispatch: z.enum(['queued', 'reserved', 'promoting']).default('queued'),
});
/** A queued input. */
export type PendingSteerInput = z.infer<typeof PendingSteerInput>;

/** Status of a tool call in the projection (R16.3). */
export const ActiveToolCallStatus = z.enum(['pending', 'running', 'completed', 'failed', 'denied']);
/** Status of a tool call in the projection. */
export type ActiveToolCallStatus = z.infer<typeof ActiveToolCallStatus>;

/** A tool call of the current batch (R16.3 `activeToolCalls`). */
export const ActiveToolCall = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  status: ActiveToolCallStatus,
  startedAt: EpochMs.optional(),
});
/** A tool call of the current batch. */
export type ActiveToolCall = z.infer<typeof ActiveToolCall>;

/** A background task as last reported (R16.3 `backgroundTasks`, R16.2). */
export const BackgroundTaskState = z.object({
  taskId: z.string(),
  status: BackgroundTaskStatus,
  taskKind: z.enum(['bash', 'subagent', 'workflow']).optional(),
  toolCallId: z.string().optional(),
  command: z.string().optional(),
  description: z.string().optional(),
  startedAt: EpochMs.optional(),
  completedAt: EpochMs.optional(),
  /** Timestamp of the last event about the task. */
  updatedAt: EpochMs,
});
/** A background task as last reported. */
export type BackgroundTaskState = z.infer<typeof BackgroundTaskState>;

/** The last turn error (R16.3 `lastError`). */
const LastError = z.object({
  error: ErrorPayload,
  turnId: z.string().nullable(),
  turnPhase: z.string().optional(),
  at: EpochMs,
});

/** The last compaction (R16.3 `lastCompact`), from `compact_boundary` or `session_compacted`. */
const LastCompact = z.object({
  boundaryId: z.string().nullable(),
  trigger: CompactTrigger.nullable(),
  preCompactTokenCount: Count.nullable(),
  postCompactTokenCount: Count.nullable(),
  at: EpochMs,
});

/** The last checkpoint (R16.3 `lastCheckpoint`). */
const LastCheckpoint = CheckpointCreatedPayload.extend({ at: EpochMs });

/** The last rewind (R16.3 `lastRewind`). */
const LastRewind = RewindTriggeredPayload.extend({ at: EpochMs });

/** The last stream recovery anchor (R16.3 `lastStreamRecoveryAnchor`). */
const LastStreamRecoveryAnchor = StreamRecoveryAnchorCreatedPayload.extend({ at: EpochMs });

/** One step of a goal-completion verification (R16.3 `targetCompletionVerificationTimeline`). */
const TargetVerificationTimelineEntry = z.object({
  targetId: z.string(),
  status: TargetCompletionVerificationPayload.shape.status,
  verificationId: z.string(),
  updatedAt: EpochMs,
});

/**
 * The session projection (R10.2, R16.3). `lastSequenceNumber` is ours: the number of the
 * last event applied, so that applying an already-applied event changes nothing (R10) and a
 * frontend can tail from it (R15.1's `asOfSeq`).
 */
export const SessionProjection = z.object({
  id: z.string(),
  /** Epoch ms; the timestamp of the first event reduced. */
  createdAt: EpochMs,
  /** Epoch ms; the timestamp of the last event reduced. */
  updatedAt: EpochMs,
  lastSequenceNumber: Count.default(0),
  /**
   * Ours (docs/decisions/0132): the title and its source as the last
   * `session_title_updated` stated them, so a frontend that starts from a snapshot knows
   * the title it would have followed live.
   */
  title: z.string().nullable().default(null),
  titleSource: TitleSource.nullable().default(null),
  mode: SessionMode.default('build'),
  status: SessionStatus.default('idle'),
  turnCount: Count.default(0),
  totalTokenCount: Count.default(0),
  contextUsed: Count.default(0),
  contextWindow: Count.default(DEFAULT_CONTEXT_WINDOW),
  pendingPermissions: z.array(PendingPermission).default([]),
  pendingSteerInputs: z.array(PendingSteerInput).default([]),
  /**
   * Ours (docs/decisions/0235): how the two lanes hand their actions over, and whether
   * queued inputs start turns by themselves, as `followup_mode_changed` and
   * `queue_auto_drain_changed` last stated them.
   */
  queueModes: z
    .object({ steeringMode: QueueMode, followUpMode: QueueMode, autoDrain: z.boolean() })
    .default({ steeringMode: 'all', followUpMode: 'one_at_a_time', autoDrain: true }),
  activeToolCalls: z.array(ActiveToolCall).default([]),
  streamingToolLedger: z.array(StreamingToolLedgerEntry).default([]),
  backgroundTasks: z.array(BackgroundTaskState).default([]),
  currentTurnId: z.string().nullable().default(null),
  lastError: LastError.nullable().default(null),
  lastCompact: LastCompact.nullable().default(null),
  lastCheckpoint: LastCheckpoint.nullable().default(null),
  lastRewind: LastRewind.nullable().default(null),
  lastStreamRecoveryAnchor: LastStreamRecoveryAnchor.nullable().default(null),
  target: Target.nullable().default(null),
  targetCompletionVerifications: z.array(TargetVerification).default([]),
  targetCompletionVerificationTimeline: z.array(TargetVerificationTimelineEntry).default([]),
});
export type SessionProjection = z.infer<typeof SessionProjection>;
