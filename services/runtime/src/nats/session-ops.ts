import type { RuntimeErrorCode } from '@agentwire/contracts';
import {
  AnswerPermissionRequest,
  AwaitTicketRequest,
  EditInputRequest,
  EmptyRequest,
  type ErrorReply,
  ForkRequest,
  type InputOp,
  MoveInputRequest,
  PromptRequest,
  RemoveInputRequest,
  RenameRequest,
  ReorderInputsRequest,
  RewindRequest,
  type RuntimeOp,
  SetModeRequest,
  SetQueueModesRequest,
  type SteerRejectReason,
  TreeRequest,
} from '@agentwire/contracts';
import { type Admission, AppendError, RuntimeError, type RuntimeSession } from '@agentwire/engine';
import { classifyPgError } from '@agentwire/store';
import {
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  TimeoutError,
} from '@nats-io/transport-node';
import { parseRequest } from './request-body.ts';

/** Limits applied to operations. */
export interface OpLimits {
  /** A prompt larger than this (UTF-8 bytes) is refused with `prompt_too_large`. */
  readonly maxPromptBytes: number;
}

/** A successful reply body. */
export type OkReply = { readonly ok: true } & Readonly<Record<string, unknown>>;

/**
 * Runs one operation on a resident session and returns its reply body. `close` is
 * answered here but the caller deactivates the session afterwards.
 */
export async function runSessionOp(
  session: RuntimeSession,
  op: RuntimeOp | InputOp,
  data: Uint8Array,
  limits: OpLimits,
): Promise<OkReply> {
  switch (op) {
    case 'create':
      // A resident session exists by definition; `create` of a new one is answered on load.
      parseRequest(EmptyRequest, data);
      throw new RuntimeError('session_exists', `session ${session.sessionId} exists`, {
        sessionId: session.sessionId,
      });
    case 'prompt': {
      const req = parseRequest(PromptRequest, data);
      const admission = await session.submit(req.text, {
        inputId: req.inputId,
        delivery: deliveryOf(req),
        expectedTurnId: req.expectedTurnId,
      });
      return admissionReply(session.sessionId, admission, req.wait === true, limits);
    }
    case 'rewind':
      return commandLine(session, 'rewind', parseRequest(RewindRequest, data).target, limits);
    case 'tree':
      return commandLine(session, 'tree', parseRequest(TreeRequest, data).messageId, limits);
    case 'fork':
      return commandLine(session, 'fork', parseRequest(ForkRequest, data).messageId, limits);
    case 'remove_input': {
      const req = parseRequest(RemoveInputRequest, data);
      await session.removeInput(req.inputId);
      return { ok: true, inputId: req.inputId };
    }
    case 'reorder_inputs': {
      const req = parseRequest(ReorderInputsRequest, data);
      return { ok: true, order: await session.reorderInputs(req.orderedInputIds) };
    }
    case 'move_input': {
      const req = parseRequest(MoveInputRequest, data);
      return { ok: true, order: await session.moveInput(req.inputId, req.position) };
    }
    case 'edit_input': {
      const req = parseRequest(EditInputRequest, data);
      await session.editInput(req.inputId, req.text);
      return { ok: true, inputId: req.inputId };
    }
    case 'set_queue_modes': {
      const req = parseRequest(SetQueueModesRequest, data);
      return { ok: true, ...(await session.runOperation('set_queue_modes', req)) };
    }
    case 'clear_inputs': {
      parseRequest(EmptyRequest, data);
      return { ok: true, cleared: await session.clearInputs() };
    }
    case 'interrupt': {
      const req = parseRequest(EmptyRequest, data);
      const { turnId, done, requeued } = session.interrupt();
      if (req.wait === true) await done.catch(() => undefined);
      return { ok: true, turnId, ...(requeued ? { requeued } : {}) };
    }
    case 'rename': {
      const req = parseRequest(RenameRequest, data);
      await session.rename(req.title);
      return { ok: true, title: req.title };
    }
    case 'answer_permission': {
      const req = parseRequest(AnswerPermissionRequest, data);
      session.answerPermission(req.requestId, {
        decision: req.decision,
        ...(req.reason === undefined ? {} : { reason: req.reason }),
      });
      return { ok: true };
    }
    case 'await_ticket': {
      const req = parseRequest(AwaitTicketRequest, data);
      const ticket = await session.runOperation('await_ticket', req);
      const lifecycle = session.actionState(req.ticketId);
      return { ok: true, ...ticket, ...(lifecycle === undefined ? {} : { lifecycle }) };
    }
    case 'set_mode': {
      const req = parseRequest(SetModeRequest, data);
      return { ok: true, ...(await session.runCommand('mode', req.mode)) };
    }
    case 'close':
      parseRequest(EmptyRequest, data);
      await session.close();
      return { ok: true };
    default: {
      const never: never = op;
      return never;
    }
  }
}

/**
 * A session command as an operation (`rewind`, `tree`, `fork`, docs/decisions/0242, 0243):
 * its line is submitted as a prompt's text is, so it runs at once when idle, waits as an
 * action when busy (0238), and fails with the same codes as when typed.
 */
async function commandLine(
  session: RuntimeSession,
  command: string,
  argument: string | undefined,
  limits: OpLimits,
): Promise<OkReply> {
  const text = argument === undefined ? `/${command}` : `/${command} ${argument}`;
  return admissionReply(session.sessionId, await session.submit(text), false, limits);
}

/** R12.2's lane of a prompt as the ledger's delivery (docs/decisions/0236). */
function deliveryOf(req: PromptRequest): 'queue' | 'guide' | undefined {
  const ofLane = req.lane === undefined ? undefined : req.lane === 'steering' ? 'guide' : 'queue';
  if (ofLane !== undefined && req.delivery !== undefined && req.delivery !== ofLane) {
    throw new RuntimeError(
      'invalid_request',
      `lane ${req.lane} is delivery ${ofLane}, not ${req.delivery}: give one of them`,
      { lane: req.lane, delivery: req.delivery },
    );
  }
  return req.delivery ?? ofLane;
}

/** The reply codes of R14.4's rejections (the older `prompt_too_large` kept for callers). */
const REJECTION_CODES: { readonly [K in SteerRejectReason]: RuntimeErrorCode } = {
  empty_input: 'empty_input',
  input_too_large: 'prompt_too_large',
  expected_turn_mismatch: 'expected_turn_mismatch',
  turn_not_steerable: 'turn_not_steerable',
  no_active_turn: 'no_active_turn',
};

/** The reply to a submission: at once, or with `wait` when the input ran or left. */
async function admissionReply(
  sessionId: string,
  admission: Admission,
  wait: boolean,
  limits: OpLimits,
): Promise<OkReply> {
  if (!admission.ok) {
    throw new RuntimeError(
      REJECTION_CODES[admission.reason],
      `input rejected: ${admission.reason}`,
      {
        reason: admission.reason,
        inputId: admission.inputId,
        ...(admission.reason === 'input_too_large' ? { limit: limits.maxPromptBytes } : {}),
      },
    );
  }
  if (admission.delivery === 'command') {
    const { inputId, command, result } = admission;
    return { ok: true, sessionId, inputId, command, result };
  }
  if (admission.delivery === 'startNow') {
    const { turnId, done, stored } = admission;
    // Accepted once stored (R14.3): a fenced or failed admission is answered as the error.
    await stored;
    if (!wait) {
      return { ok: true, sessionId, inputId: admission.inputId, delivery: 'startNow', turnId };
    }
    return { ok: true, sessionId, inputId: admission.inputId, ...(await done) };
  }
  const { settled, ...rest } = admission;
  if (!wait) return { ...rest, sessionId };
  const settlement = await settled;
  switch (settlement.kind) {
    case 'started':
      return { ...rest, sessionId, ...(await settlement.done) };
    case 'drained':
      return { ...rest, sessionId, turnId: settlement.turnId, messageId: settlement.messageId };
    case 'discarded':
      return { ...rest, sessionId, discarded: settlement.reason };
    default:
      return { ...rest, sessionId, discarded: 'session_left' };
  }
}

/** Maps any failure to a typed error reply (unknown failures are `internal`). */
export function errorReply(err: unknown): ErrorReply {
  if (err instanceof RuntimeError) {
    return { ok: false, error: { code: err.code, message: err.message, detail: err.detail } };
  }
  if (err instanceof AppendError) {
    return {
      ok: false,
      error: {
        code: 'session_broken',
        message: err.message,
        detail: { phase: err.phase, code: err.code },
      },
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  const dependency = outageOf(err);
  if (dependency !== undefined) {
    return { ok: false, error: { code: 'unavailable', message, detail: { dependency } } };
  }
  return { ok: false, error: { code: 'internal', message } };
}

/** nats.js errors of a broker that is away or did not answer. */
const BROKER_OUTAGES = [
  TimeoutError,
  NoRespondersError,
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
];

/** The server `err` says was unreachable (a connection refused or lost, a timeout), if any. */
function outageOf(err: unknown): 'database' | 'broker' | undefined {
  if (classifyPgError(err).kind === 'connection') return 'database';
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth += 1) {
    if (BROKER_OUTAGES.some((type) => e instanceof type)) return 'broker';
    e = e.cause;
  }
  return undefined;
}
