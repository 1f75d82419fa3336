import { AppendError } from '../core/append-error.ts';
import { RuntimeError } from '../core/runtime-error.ts';
import type { RuntimeSession } from '../core/runtime-session.ts';
import { parseRequest } from './request-body.ts';
import {
  AnswerPermissionRequest,
  EmptyRequest,
  type ErrorReply,
  PromptRequest,
  RenameRequest,
  type RuntimeOp,
} from './runtime-protocol.ts';

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
  op: RuntimeOp,
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
      const bytes = Buffer.byteLength(req.text, 'utf8');
      if (bytes > limits.maxPromptBytes) {
        throw new RuntimeError(
          'prompt_too_large',
          `prompt of ${bytes} bytes exceeds ${limits.maxPromptBytes}`,
          {
            bytes,
            limit: limits.maxPromptBytes,
          },
        );
      }
      if (req.text.trim() === '') throw new RuntimeError('empty_input', 'the prompt is empty');
      const ticket = session.prompt(
        req.text,
        req.inputId === undefined ? {} : { inputId: req.inputId },
      );
      if (req.wait !== true) {
        ticket.done.catch(() => undefined);
        return { ok: true, sessionId: session.sessionId, turnId: ticket.turnId };
      }
      const outcome = await ticket.done;
      return { ok: true, sessionId: session.sessionId, ...outcome };
    }
    case 'interrupt': {
      const req = parseRequest(EmptyRequest, data);
      const { turnId, done } = session.interrupt();
      if (req.wait === true) await done.catch(() => undefined);
      return { ok: true, turnId };
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
  return { ok: false, error: { code: 'internal', message } };
}
