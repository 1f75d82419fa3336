/**
 * The frontend protocol of the runtime (DESIGN.md "Subjects": `aw.rt.open` and
 * `aw.rt.<sid>.<op>`) and of projection queries (`aw.projection.get`): request bodies,
 * reply bodies and error codes, shared by the runtime, the gateway and the CLI so that no
 * frontend imports a service.
 */
import { z } from 'zod';
import { ErrorPayload, SessionMode } from './payloads/common.ts';
import { PermissionDecision } from './payloads/permission.ts';
import { SessionId } from './session-event.ts';

/** `aw.rt.open`: claim and load a session (a new one when `sessionId` is absent). */
export const OpenRequest = z
  .strictObject({
    sessionId: SessionId.optional(),
    /**
     * A transcript file (`formatTranscript`, docs/decisions/0241): the session opened is a
     * new one holding it (an import); the runtime picks its id.
     */
    transcript: z.string().optional(),
    /**
     * Instead of `transcript`, a file too large for one request: its reference in the
     * uploads bucket (`aw-blob:sha256:<hex>:<bytes>`, put there by the frontend).
     */
    transcriptRef: z.string().optional(),
  })
  .refine((r) => r.transcript === undefined || r.transcriptRef === undefined, {
    message: 'give the transcript inline or its uploaded reference, not both',
    path: ['transcriptRef'],
  })
  .refine(
    (r) =>
      (r.transcript === undefined && r.transcriptRef === undefined) || r.sessionId === undefined,
    {
      message: 'an import makes a new session: give a transcript or a sessionId, not both',
      path: ['sessionId'],
    },
  );
export type OpenRequest = z.infer<typeof OpenRequest>;

/**
 * `aw.rt.<sid>.prompt`: submit an input (R12, R14). Nothing running: it starts a turn. While
 * a turn runs, `delivery` says where it goes: `queue` (the default) starts its own turn
 * after the running one, `guide` is inlined into the running turn at its next model step
 * boundary. `expectedTurnId` is the turn the submitter saw running (another one is
 * `expected_turn_mismatch`). With `wait` the reply comes when the input's turn ended (or it
 * was drained or discarded).
 */
export const PromptRequest = z.strictObject({
  text: z.string(),
  inputId: z.string().min(1).optional(),
  wait: z.boolean().optional(),
  delivery: z.enum(['queue', 'guide']).optional(),
  /**
   * R12.2's name of the same choice (docs/decisions/0236): `steering` is `guide` (policy
   * `next_turn_boundary`), `followUp` is `queue` (policy `when_run_idle`). Giving both
   * `lane` and a `delivery` that disagrees is `invalid_request`.
   */
  lane: z.enum(['steering', 'followUp']).optional(),
  expectedTurnId: z.string().min(1).optional(),
});
export type PromptRequest = z.infer<typeof PromptRequest>;

/** `aw.rt.<sid>.rename`: a user rename (title source `custom`, R9.3). */
export const RenameRequest = z.strictObject({ title: z.string().trim().min(1).max(200) });
export type RenameRequest = z.infer<typeof RenameRequest>;

/** `aw.rt.<sid>.answer_permission`: a frontend's answer to `permission_requested` (R1.4). */
export const AnswerPermissionRequest = z.strictObject({
  requestId: z.string().min(1),
  decision: PermissionDecision,
  reason: z.string().optional(),
});
/** `answer_permission` request. */
export type AnswerPermissionRequest = z.infer<typeof AnswerPermissionRequest>;

/**
 * `aw.rt.<sid>.set_mode`: what tools may do from now on (R16.2, docs/decisions/0223);
 * `session_mode_changed` when it changed. The same as the `/mode <mode>` command.
 */
export const SetModeRequest = z.strictObject({ mode: SessionMode });
/** `set_mode` request. */
export type SetModeRequest = z.infer<typeof SetModeRequest>;

/** Reply of `set_mode`: the mode now, the one before, and whether it changed. */
export const SetModeReply = z.object({
  ok: z.literal(true),
  mode: SessionMode,
  previousMode: SessionMode,
  changed: z.boolean(),
});
/** Reply of `set_mode`. */
export type SetModeReply = z.infer<typeof SetModeReply>;

/** Longest an `await_ticket` waits before it answers the state as it is. */
export const TICKET_WAIT_MAX_MS = 120_000;

/**
 * `aw.rt.<sid>.await_ticket`: wait until a submission (its input id is its ticket, R12.4)
 * is `delivered` (its user message committed) or `completed` (its turn ended), or left
 * without running (`discarded`), at most `timeoutMs` (default 30 s); any frontend may ask,
 * not only the one that submitted it (docs/decisions/0226).
 */
export const AwaitTicketRequest = z.strictObject({
  ticketId: z.string().min(1).max(200),
  until: z.enum(['delivered', 'completed']),
  timeoutMs: z.number().int().min(0).max(TICKET_WAIT_MAX_MS).default(30_000),
});
/** `await_ticket` request. */
export type AwaitTicketRequest = z.input<typeof AwaitTicketRequest>;

/** Where an accepted input is in its lifecycle (R12.3, docs/decisions/0235). */
export const ActionState = z.enum([
  'queued',
  'selected',
  'preparing',
  'committing',
  'running',
  'completed',
  'failed',
  'cancelled',
]);
/** Where an accepted input is in its lifecycle. */
export type ActionState = z.infer<typeof ActionState>;

/**
 * Reply of `await_ticket`: the ticket's state now. `timedOut` when it had not reached
 * `until` in time. `completed` carries the turn's `status` and (R1.1) its events, numbers
 * and types, when the turn ran where it is owned now.
 */
export const TicketReply = z.object({
  ok: z.literal(true),
  ticketId: z.string(),
  state: z.enum(['accepted', 'delivered', 'completed', 'discarded']),
  timedOut: z.boolean(),
  turnId: z.string().optional(),
  messageId: z.string().optional(),
  status: z.enum(['complete', 'cancelled', 'error']).optional(),
  reason: z.string().optional(),
  events: z.array(z.object({ sequenceNumber: z.number().int(), type: z.string() })).optional(),
  /**
   * Its lifecycle state (R12.3) as the owning runtime has it, when that runtime accepted
   * it or took it over (an input of an earlier owner has none there).
   */
  lifecycle: ActionState.optional(),
  /**
   * R1.1's turn result, added by the client library (`RuntimeClient.awaitTicket`, so the
   * gateway and the CLI too; docs/decisions/0234) to a `completed` ticket with events: the
   * session's projection once it has applied the turn's last event, and the number it is
   * as of (that event's, or later when the session moved on meanwhile).
   */
  projection: z.unknown().optional(),
  projectionAsOfSeq: z.number().int().min(0).optional(),
});
/** Reply of `await_ticket`. */
export type TicketReply = z.infer<typeof TicketReply>;

/** Requests without fields: `create`, `interrupt`, `close`. */
export const EmptyRequest = z.strictObject({ wait: z.boolean().optional() });
export type EmptyRequest = z.infer<typeof EmptyRequest>;

/** The operations answered on `aw.rt.<sid>.<op>`. */
const RUNTIME_OPS = [
  'create',
  'prompt',
  'interrupt',
  'rename',
  'answer_permission',
  'set_mode',
  'await_ticket',
  'rewind',
  'tree',
  'fork',
  'close',
] as const;
/** One operation name. */
export type RuntimeOp = (typeof RUNTIME_OPS)[number];

/** True for a known operation name. */
export function isRuntimeOp(op: string): op is RuntimeOp {
  return (RUNTIME_OPS as readonly string[]).includes(op);
}

/**
 * Every code the runtime answers `{ ok: false, error }` with, so a frontend can switch on
 * it exhaustively:
 * - request: `invalid_request` (the body failed its schema), `unknown_op`;
 * - session: `unknown_session` (no trace anywhere, R13.2), `session_exists` (`create` of a
 *   known id), `lease_conflict` (another live instance owns it, R13.1; detail `owner`),
 *   `session_closed`, `session_broken` (an append failed; the session left residency and
 *   the next operation cold-recovers it), `takeover_failed` (making the session resident
 *   failed after its retries: a stream read failed, or an earlier writer still wrote;
 *   retryable, nothing was written, docs/decisions/0110);
 * - turns: `turn_in_progress`, `no_active_turn` (`interrupt` with nothing running);
 * - compaction (0229): `compaction_in_progress` (`/compact` while one runs),
 *   `nothing_to_compact` (no message before the last prompt, or only an earlier summary);
 * - inputs (R14.4): `empty_input`, `prompt_too_large` (R14.4 `input_too_large`; detail
 *   `limit`), `expected_turn_mismatch`, `turn_not_steerable` (`guide` into a turn being
 *   interrupted), `input_not_pending` (`remove_input`/`reorder_inputs`/`move_input` of an
 *   input not waiting), `position_out_of_range` (`move_input` past the last; detail
 *   `position`, `size`), `duplicate_input` (an `inputId` the session accepted before it was loaded
 *   where it runs now; detail `turnId` when it got a turn: a retry of one accepted since
 *   gets the first answer again, never a second turn), `illegal_transition` (an
 *   operation that asks an action for a move its lifecycle table forbids, R12.3: removing
 *   an input that is no longer queued; detail `inputId`, `from`, `to`);
 * - normalisation (R12.1): `unknown_command` (a slash command that is neither built in nor
 *   a workspace prompt template; detail `command` and `known`, the names that exist),
 *   `invalid_command` (a known command with arguments it cannot take; detail `command`,
 *   `usage`), `invalid_file_reference` (an `@file` reference that is malformed, outside
 *   the workspace, missing, not a file, not text or too large; detail `reference`,
 *   `reason`); `unknown_model` (a model selection that is not configured; detail `model`,
 *   `known`); `unknown_checkpoint` (`/rewind` to a checkpoint this session does not hold;
 *   detail `checkpointId`, `known`); `checkpoint_not_on_branch` (`/rewind` to a
 *   checkpoint of a branch the conversation is not on, 0239; detail `checkpointId`);
 *   `unknown_message` (`/rewind` or `/tree` to a message this session does not hold;
 *   detail `messageId`); `nothing_to_rewind` (`/rewind` to the end of the last turn:
 *   nothing follows it; detail `messageId`); `invalid_transcript` (an import whose file is
 *   not a transcript: detail `line`, 1-based, 0 for the whole file), `transcript_too_large`
 *   (over the import's bytes or messages; detail `line`); `unknown_ticket` (`await_ticket` of an input id the
 *   session never accepted; detail `ticketId`);
 * - goals (0231): `no_goal` (`/goal pause|resume|clear` in a session without one),
 *   `invalid_goal_state` (pause of a goal that is not active, resume of one that is not
 *   paused; detail `status`, `wanted`);
 * - permissions: `unknown_permission_request` (answered twice, expired or never asked);
 * - persistence: `write_not_confirmed` (the persistence worker did not confirm a write the
 *   reply depends on, a rename, in time: the write stays queued and may still apply);
 * - `unavailable`: a server the operation needs (Postgres, the broker) refused the connection
 *   or did not answer in time; retry (a prompt with the same `inputId`: it is taken once);
 *   detail `dependency` (`database` or `broker`);
 * - `internal`: anything unclassified.
 */
export const RuntimeErrorCode = z.enum([
  'invalid_request',
  'unknown_op',
  'unknown_session',
  'session_exists',
  'lease_conflict',
  'session_closed',
  'session_broken',
  'takeover_failed',
  'turn_in_progress',
  'no_active_turn',
  'compaction_in_progress',
  'nothing_to_compact',
  'empty_input',
  'prompt_too_large',
  'expected_turn_mismatch',
  'turn_not_steerable',
  'input_not_pending',
  'position_out_of_range',
  'duplicate_input',
  'illegal_transition',
  'unknown_command',
  'invalid_command',
  'invalid_file_reference',
  'unknown_model',
  'unknown_checkpoint',
  'checkpoint_not_on_branch',
  'unknown_message',
  'nothing_to_rewind',
  'invalid_transcript',
  'transcript_too_large',
  'unknown_ticket',
  'no_goal',
  'invalid_goal_state',
  'unknown_permission_request',
  'write_not_confirmed',
  'unavailable',
  'internal',
]);
export type RuntimeErrorCode = z.infer<typeof RuntimeErrorCode>;

/**
 * The body of a typed error reply. The code is one of {@link RuntimeErrorCode}: a reply
 * with any other code fails this schema (a client reports it as an invalid reply), so a
 * runtime adding a code must add it here first (docs/decisions/0090).
 */
const RuntimeErrorBody = z.object({
  code: RuntimeErrorCode,
  message: z.string(),
  detail: z.record(z.string(), z.unknown()).optional(),
});

/** A typed error reply: `{ ok: false, error: { code, message, detail? } }`. */
export const ErrorReply = z.object({ ok: z.literal(false), error: RuntimeErrorBody });
export type ErrorReply = z.infer<typeof ErrorReply>;

/** Reply of `aw.rt.open`: the session and the instance that owns it now. */
export const OpenReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  owner: z.string(),
  /** The last sequence number of the session: a follower starts after it or earlier. */
  lastSequence: z.number().int().min(0),
  /** An import's messages written (0241). */
  imported: z.number().int().min(0).optional(),
});
/** Reply of `aw.rt.open`. */
export type OpenReply = z.infer<typeof OpenReply>;

/** Reply of `create`: a new, empty session now resident at `owner`. */
export const CreateReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  owner: z.string(),
});
/** Reply of `create`. */
export type CreateReply = z.infer<typeof CreateReply>;

/**
 * Reply of a `prompt` that started a turn: at once with the new turn's id, or with `wait` once the turn ended
 * (`status`, `response`, `error` on failure).
 */
const StartedPromptReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  /** The submission's ticket (R12.4). */
  inputId: z.string().optional(),
  turnId: z.string(),
  status: z.enum(['complete', 'cancelled', 'error']).optional(),
  response: z.string().optional(),
  error: ErrorPayload.optional(),
});

/** Reply of `interrupt`: the turn that was asked to stop. */
export const InterruptReply = z.object({
  ok: z.literal(true),
  turnId: z.string(),
  /**
   * True when the turn was still preparing (its input not committed): it was not ended;
   * its input went back to the queue and runs next, once (R12.5, docs/decisions/0235).
   */
  requeued: z.boolean().optional(),
});
/** Reply of `interrupt`. */
export type InterruptReply = z.infer<typeof InterruptReply>;

/** Reply of `rename`: the title as stored (R9.3). */
export const RenameReply = z.object({ ok: z.literal(true), title: z.string() });
/** Reply of `rename`. */
export type RenameReply = z.infer<typeof RenameReply>;

/** Reply of `answer_permission` and `close`. */
export const AckReply = z.object({ ok: z.literal(true) });
/** Reply of `answer_permission` and `close`. */
export type AckReply = z.infer<typeof AckReply>;

/** Request of `aw.projection.get` (R10.2). */
export const ProjectionGetRequest = z.object({ sessionId: SessionId.min(1).max(200) });
/** Request of `aw.projection.get`. */
export type ProjectionGetRequest = z.infer<typeof ProjectionGetRequest>;

/**
 * Reply of `aw.projection.get`: the stored projection and the last sequence number applied
 * to it; a frontend takes it as a snapshot and tails from `asOfSeq + 1` (R15.1).
 */
export const ProjectionGetReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), projection: z.unknown(), asOfSeq: z.number().int().min(0) }),
  z.object({
    ok: z.literal(false),
    error: z.enum(['not_found', 'invalid_request', 'unavailable']),
    message: z.string(),
  }),
]);
/** Reply of `aw.projection.get`. */
export type ProjectionGetReply = z.infer<typeof ProjectionGetReply>;

/**
 * Reply of a `prompt` that did not start a turn at once: the input waits (`queue`) or will
 * be inlined (`guide`) (R14.3). With `wait`, a queued input's reply comes when its own turn
 * ended (`turnId`, `status`, ...), a guided one's when it was drained (`turnId`, `messageId`),
 * and `discarded` names the reason when it left without running.
 */
export const QueuedPromptReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  inputId: z.string(),
  delivery: z.enum(['queue', 'guide']),
  targetTurnId: z.string().nullable(),
  queueLength: z.number().int().min(0),
  turnId: z.string().optional(),
  messageId: z.string().optional(),
  status: z.enum(['complete', 'cancelled', 'error']).optional(),
  response: z.string().optional(),
  discarded: z.string().optional(),
});
/** Reply of a queued or guided `prompt`. */
export type QueuedPromptReply = z.infer<typeof QueuedPromptReply>;

/**
 * Reply of a `prompt` whose text was a slash command run directly (R12.1: `/help`,
 * `/status`, `/rename ...`): nothing was sent to the model; `result` is the command's own.
 */
export const CommandPromptReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  inputId: z.string(),
  command: z.string(),
  result: z.record(z.string(), z.unknown()),
});
/** Reply of a `prompt` that ran a slash command. */
export type CommandPromptReply = z.infer<typeof CommandPromptReply>;

/**
 * Reply of `prompt` (R12.1, R14.3): a {@link CommandPromptReply} when the text was a slash
 * command run directly (told apart by its `command`), a {@link QueuedPromptReply} when the
 * input waits or is guided into the running turn (told apart by its `inputId`), else a
 * {@link StartedPromptReply}. Queued before started: a queued reply with `wait` also
 * carries a `turnId`.
 */
export const PromptReply = z.union([CommandPromptReply, QueuedPromptReply, StartedPromptReply]);
/** Reply of `prompt`. */
export type PromptReply = z.infer<typeof PromptReply>;

/** True when a prompt's reply is a slash command's result (R12.1). */
export function isCommandPromptReply(reply: PromptReply): reply is CommandPromptReply {
  return 'command' in reply;
}

/** True when a prompt's reply says its input was queued or guided, not started (R14.3). */
export function isQueuedPromptReply(reply: PromptReply): reply is QueuedPromptReply {
  // Every reply names its input (its ticket); only a queued or guided one has a queue.
  return 'queueLength' in reply;
}
