import {
  AckReply,
  type AnswerPermissionRequest,
  ClearInputsReply,
  CreateReply,
  type EmptyRequest,
  ErrorReply,
  type InputOp,
  InterruptReply,
  type Names,
  OpenReply,
  ProjectionGetReply,
  PromptReply,
  type PromptRequest,
  QueueModesReply,
  RemoveInputReply,
  RenameReply,
  ReorderInputsReply,
  type RuntimeErrorCode,
  type RuntimeOp,
  SessionCommandReply,
  SetModeReply,
  type SetModeRequest,
  type SetQueueModesRequest,
  TicketReply,
  TRANSCRIPT_INLINE_BYTES,
  TRANSCRIPT_MAX_BYTES,
} from '@agentwire/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import { BlobStore } from './blob-store.ts';
import { BusError } from './bus-error.ts';
import type { BusConnection } from './connect-bus.ts';
import { followSession, type SessionFollower } from './follow-session.ts';
import { forkOrigin } from './fork-origin.ts';
import { failure, type ReplySchema, requestReply } from './request-reply.ts';
import { lastSessionSequence } from './session-state.ts';

/**
 * Codes of a failed runtime request: the runtime's own codes, plus those the client adds:
 * `timeout` (no reply in time), `unavailable` (no instance listens), `invalid_reply` (the
 * reply failed its schema), and the projection's `not_found` / `projection_unavailable`.
 */
export type RuntimeFailureCode =
  | RuntimeErrorCode
  | 'timeout'
  | 'unavailable'
  | 'invalid_reply'
  | 'not_found'
  | 'projection_unavailable';

/** An expected failure of a request, as a value (STYLE.md "Outcomes and errors"). */
export interface RuntimeFailure {
  readonly ok: false;
  readonly error: {
    /** A {@link RuntimeFailureCode}, or a code added by a newer runtime. */
    readonly code: RuntimeFailureCode | (string & {});
    readonly message: string;
    readonly detail?: Readonly<Record<string, unknown>> | undefined;
  };
}

/** A reply or an expected failure. */
export type RuntimeResult<T> = T | RuntimeFailure;

/** Options of one request. */
export interface RequestOptions {
  /** How long to wait for the reply, ms (default: the client's `timeoutMs`). */
  readonly timeoutMs?: number;
}

export interface RuntimeClientOptions {
  /** Default reply timeout, ms (15 s). */
  readonly timeoutMs?: number;
}

/** A projection snapshot (R10.2): replay from `asOfSeq + 1` to follow on from it (R15.1). */
export interface ProjectionSnapshotReply {
  readonly ok: true;
  readonly projection: unknown;
  readonly asOfSeq: number;
}

const encoder = new TextEncoder();

/** How long a completed ticket waits for the projection to apply its turn's last event. */
const PROJECTION_CATCH_UP_MS = 3_000;

/** Header a KV delete or purge marker carries (`DEL`, `PURGE`); absent on a put. */
const KV_OPERATION = 'KV-Operation';

/**
 * A typed frontend client of the runtime (DESIGN.md "Subjects": `aw.rt.open`,
 * `aw.rt.<sid>.<op>`) and of projection queries (`aw.projection.get`), over NATS
 * request/reply. Every reply is parsed with the contracts' schemas; error replies, timeouts
 * and missing responders come back as {@link RuntimeFailure} values. A closed connection
 * throws {@link BusError} (`not_connected`).
 */
export class RuntimeClient {
  readonly #nc: NatsConnection;
  readonly #bus: BusConnection;
  readonly #names: Names;
  readonly #timeoutMs: number;

  constructor(bus: BusConnection, names: Names, options: RuntimeClientOptions = {}) {
    this.#bus = bus;
    this.#nc = bus.nc;
    this.#names = names;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Claims and loads a session, a new one when `sessionId` is absent (flow 5). */
  open(sessionId?: string, options?: RequestOptions): Promise<RuntimeResult<OpenReply>> {
    const body = sessionId === undefined ? {} : { sessionId };
    return this.#request(this.#names.runtimeOpen, body, OpenReply, options);
  }

  /**
   * Imports a transcript file (an export's, 0241) as a new session, resident at `owner`;
   * `invalid_transcript` or `transcript_too_large` naming the line, and nothing written. A
   * file whose request would not fit in one message (its JSON escapes quotes and
   * backslashes, so it can be larger than the file) goes to the uploads bucket first, and
   * the request carries its reference; a file over `TRANSCRIPT_MAX_BYTES` is
   * `transcript_too_large` here, unsent.
   */
  async importSession(
    transcript: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<OpenReply>> {
    const body = { transcript };
    const bytes = encoder.encode(JSON.stringify(body)).length;
    const max = Math.min(
      this.#nc.info?.max_payload ?? TRANSCRIPT_INLINE_BYTES,
      TRANSCRIPT_INLINE_BYTES,
    );
    if (bytes <= max) return this.#request(this.#names.runtimeOpen, body, OpenReply, options);
    const fileBytes = encoder.encode(transcript).length;
    if (fileBytes > TRANSCRIPT_MAX_BYTES) {
      return {
        ok: false,
        error: {
          code: 'transcript_too_large',
          message: `the transcript is ${fileBytes} bytes, over the ${TRANSCRIPT_MAX_BYTES} an import takes`,
          detail: { line: 0, bytes: fileBytes, limit: TRANSCRIPT_MAX_BYTES },
        },
      };
    }
    let transcriptRef: string;
    try {
      transcriptRef = await BlobStore.uploads(this.#nc, this.#names).put(transcript);
    } catch (error) {
      if (!(error instanceof BusError)) throw error;
      return failure('unavailable', `the transcript could not be uploaded: ${error.message}`);
    }
    return this.#request(this.#names.runtimeOpen, { transcriptRef }, OpenReply, options);
  }

  /** Creates a new, empty session with the given id; `session_exists` when it has a trace. */
  create(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<CreateReply>> {
    return this.#op(sessionId, 'create', {}, CreateReply, options);
  }

  /** Starts a turn (flow 1); with `wait` the reply comes when the turn ends. */
  prompt(
    sessionId: string,
    request: PromptRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<PromptReply>> {
    return this.#op(sessionId, 'prompt', request, PromptReply, options);
  }

  /** Asks the running turn to stop; `no_active_turn` when none runs. */
  interrupt(
    sessionId: string,
    request: EmptyRequest = {},
    options?: RequestOptions,
  ): Promise<RuntimeResult<InterruptReply>> {
    return this.#op(sessionId, 'interrupt', request, InterruptReply, options);
  }

  /** Renames a session (title source `custom`, R9.3). */
  rename(
    sessionId: string,
    title: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<RenameReply>> {
    return this.#op(sessionId, 'rename', { title }, RenameReply, options);
  }

  /** Answers a `permission_requested` event (R1.4). */
  answerPermission(
    sessionId: string,
    answer: AnswerPermissionRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<AckReply>> {
    return this.#op(sessionId, 'answer_permission', answer, AckReply, options);
  }

  /**
   * Removes a waiting input (`turn_steer_discarded` `user_removed`, R14.4);
   * `input_not_pending` when it is not waiting (any more).
   */
  removeInput(
    sessionId: string,
    inputId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<RemoveInputReply>> {
    return this.#op(sessionId, 'remove_input', { inputId }, RemoveInputReply, options);
  }

  /**
   * Moves the listed waiting inputs to the front of the queue in this order; the others keep
   * theirs (`turn_steer_reordered`, R14.4). The reply has the whole new order.
   */
  reorderInputs(
    sessionId: string,
    orderedInputIds: readonly string[],
    options?: RequestOptions,
  ): Promise<RuntimeResult<ReorderInputsReply>> {
    return this.#op(
      sessionId,
      'reorder_inputs',
      { orderedInputIds: [...orderedInputIds] },
      ReorderInputsReply,
      options,
    );
  }

  /**
   * Moves a waiting input to `position` (0 = next to run), the others keeping their order
   * (`turn_steer_reordered`); `position_out_of_range` past the last, `input_not_pending`
   * when it is not waiting. The reply has the whole new order.
   */
  moveInput(
    sessionId: string,
    inputId: string,
    position: number,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ReorderInputsReply>> {
    return this.#op(sessionId, 'move_input', { inputId, position }, ReorderInputsReply, options);
  }

  /**
   * Edits a waiting input's text in place (same id, position and delivery); the text is
   * normalised as a prompt. `input_not_pending` once it left the queue.
   */
  editInput(
    sessionId: string,
    inputId: string,
    text: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<RemoveInputReply>> {
    return this.#op(sessionId, 'edit_input', { inputId, text }, RemoveInputReply, options);
  }

  /**
   * Clears the queue: every waiting input leaves (`turn_steer_discarded` `user_cleared`).
   * A no-op on an empty queue; the reply lists the ids that left.
   */
  clearInputs(
    sessionId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ClearInputsReply>> {
    return this.#op(sessionId, 'clear_inputs', {}, ClearInputsReply, options);
  }

  /**
   * Sets how the queue's lanes hand their actions over and whether queued inputs start by
   * themselves (R12.2, docs/decisions/0236); fields left out keep their value.
   * `followup_mode_changed` / `queue_auto_drain_changed` say what changed.
   */
  setQueueModes(
    sessionId: string,
    modes: SetQueueModesRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<QueueModesReply>> {
    return this.#op(sessionId, 'set_queue_modes', modes, QueueModesReply, options);
  }

  /**
   * Sets what tools may do from now on (R16.2: plan, build, edit, yolo, auto);
   * `session_mode_changed` when it changed.
   */
  setMode(
    sessionId: string,
    mode: SetModeRequest['mode'],
    options?: RequestOptions,
  ): Promise<RuntimeResult<SetModeReply>> {
    return this.#op(sessionId, 'set_mode', { mode }, SetModeReply, options);
  }

  /**
   * `/rewind` as an operation (docs/decisions/0225, 0239): without `target` the checkpoints
   * in force on the active chain; with a checkpoint id or a message id, files and
   * conversation go back there. While the session is busy it waits as an action and the
   * reply is its ticket (0238). `unknown_checkpoint`, `checkpoint_not_on_branch`,
   * `unknown_message`, `nothing_to_rewind`, `invalid_request` for an id with whitespace or a
   * wildcard.
   */
  rewind(
    sessionId: string,
    target?: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<SessionCommandReply>> {
    const body = target === undefined ? {} : { target };
    return this.#op(sessionId, 'rewind', body, SessionCommandReply, options);
  }

  /**
   * `/tree` as an operation (docs/decisions/0239): without `messageId` the leaf and the
   * branches; with it, that message of any branch becomes the leaf. Queued while busy, as
   * {@link rewind} is; `unknown_message` for a message this session does not hold.
   */
  tree(
    sessionId: string,
    messageId?: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<SessionCommandReply>> {
    const body = messageId === undefined ? {} : { messageId };
    return this.#op(sessionId, 'tree', body, SessionCommandReply, options);
  }

  /**
   * `/fork` as an operation (docs/decisions/0240, 0243): a new session holding a copy of the
   * chain up to `messageId`; the result names it (`ForkResult`). Queued while busy, as
   * {@link rewind} is; `unknown_message` for a message this session does not hold.
   */
  fork(
    sessionId: string,
    messageId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<SessionCommandReply>> {
    return this.#op(sessionId, 'fork', { messageId }, SessionCommandReply, options);
  }

  /**
   * Waits until a submission (by its input id, its ticket) is `delivered` or `completed`,
   * or left without running, at most `timeoutMs` (R12.4); any frontend may ask.
   */
  async awaitTicket(
    sessionId: string,
    ticketId: string,
    until: 'delivered' | 'completed',
    timeoutMs = 30_000,
    options?: RequestOptions,
  ): Promise<RuntimeResult<TicketReply>> {
    const reply = await this.#op(
      sessionId,
      'await_ticket',
      { ticketId, until, timeoutMs },
      TicketReply,
      { ...options, timeoutMs: Math.max(options?.timeoutMs ?? 0, timeoutMs + 5_000) },
    );
    if (!reply.ok || reply.state !== 'completed' || reply.events === undefined) return reply;
    const last = Math.max(0, ...reply.events.map((e) => e.sequenceNumber));
    const snapshot = await this.#projectionAsOf(sessionId, last);
    return snapshot === undefined
      ? reply
      : { ...reply, projection: snapshot.projection, projectionAsOfSeq: snapshot.asOfSeq };
  }

  /**
   * The projection once it has applied event `sequence` (R1.1's turn result), waiting for
   * the projection service to catch up for at most {@link PROJECTION_CATCH_UP_MS}; undefined
   * when it does not answer or lags past that (the ticket is then answered without it).
   */
  async #projectionAsOf(
    sessionId: string,
    sequence: number,
  ): Promise<{ projection: unknown; asOfSeq: number } | undefined> {
    const deadline = Date.now() + PROJECTION_CATCH_UP_MS;
    for (;;) {
      const reply = await this.projection(sessionId, { timeoutMs: 2_000 }).catch(() => undefined);
      if (reply?.ok === true && reply.asOfSeq >= sequence) return reply;
      if (reply?.ok === false && reply.error.code !== 'not_found') return undefined;
      if (Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Ends a session (`session_ended`) and releases it. */
  close(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<AckReply>> {
    return this.#op(sessionId, 'close', {}, AckReply, options);
  }

  /** Reads a session's stored projection and its `asOfSeq` (R10.2); `not_found` without one. */
  async projection(
    sessionId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ProjectionSnapshotReply>> {
    const reply = await this.#request(
      this.#names.projectionGet,
      { sessionId },
      ProjectionGetReply,
      options,
    );
    if (reply.ok) return reply;
    // The projection's refusal carries a bare code; a runtime-style error reply an object.
    if (typeof reply.error !== 'string') return reply as RuntimeFailure;
    const code = reply.error === 'unavailable' ? 'projection_unavailable' : reply.error;
    return failure(code, 'message' in reply ? reply.message : code);
  }

  /**
   * True when the session left a trace a frontend can follow: events in the stream, or a
   * held lease in the lease bucket, which an opened session has before its first event. A
   * released lease (the key's `DEL` or `PURGE` marker) is no trace: a session that was opened,
   * never prompted and then closed leaves only that marker (the runtime itself never takes the
   * lease of an unknown id, docs/decisions/0077).
   */
  async knows(sessionId: string): Promise<boolean> {
    const tip = await lastSessionSequence(this.#bus.jsm, this.#names, sessionId);
    if (tip !== null) return true;
    const bucket = this.#names.leaseBucket;
    const lease = await this.#bus.jsm.streams
      .getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.${sessionId}` })
      .catch(() => null);
    if (lease === null || lease === undefined) return false;
    const operation = lease.header?.get(KV_OPERATION);
    return operation !== 'DEL' && operation !== 'PURGE';
  }

  /** The session `sessionId` was forked from, per its first event; undefined if none. */
  forkOrigin(sessionId: string): Promise<string | undefined> {
    return forkOrigin(this.#bus.jsm, this.#names, sessionId);
  }

  /** Replays a session after `afterSequence`, then tails it (R15.1; see `followSession`). */
  follow(sessionId: string, afterSequence: number): SessionFollower {
    return followSession(this.#bus.js, this.#names, sessionId, {
      afterSequence,
      reconnects: (listener) => this.#bus.onReconnect(listener),
    });
  }

  /** Sends an operation to `aw.rt.<sid>.<op>`. */
  #op<T>(
    sessionId: string,
    op: RuntimeOp | InputOp,
    body: unknown,
    schema: ReplySchema<T>,
    options: RequestOptions | undefined,
  ): Promise<RuntimeResult<T>> {
    let subject: string;
    try {
      subject = this.#names.runtimeOp(sessionId, op);
    } catch (cause) {
      return Promise.resolve(failure('invalid_request', (cause as Error).message));
    }
    return this.#request(subject, body, schema, options);
  }

  #request<T>(
    subject: string,
    body: unknown,
    schema: ReplySchema<T>,
    options: RequestOptions | undefined,
  ): Promise<RuntimeResult<T>> {
    return requestReply(this.#nc, subject, body, {
      schema,
      errorSchema: ErrorReply as ReplySchema<RuntimeFailure>,
      timeoutMs: options?.timeoutMs ?? this.#timeoutMs,
      service: 'service',
    });
  }
}
