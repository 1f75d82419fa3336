import { PermissionDecision, SessionId } from '@agentwire/contracts';
import { z } from 'zod';

/** `aw.rt.open`: claim and load a session (a new one when `sessionId` is absent). */
export const OpenRequest = z.strictObject({ sessionId: SessionId.optional() });
/** `aw.rt.open` request. */
export type OpenRequest = z.infer<typeof OpenRequest>;

/** `aw.rt.<sid>.prompt`: start a turn; with `wait` the reply comes when the turn ends. */
export const PromptRequest = z.strictObject({
  text: z.string(),
  inputId: z.string().min(1).optional(),
  wait: z.boolean().optional(),
});
/** `prompt` request. */
export type PromptRequest = z.infer<typeof PromptRequest>;

/** `aw.rt.<sid>.rename`: a user rename (title source `custom`, R9.3). */
export const RenameRequest = z.strictObject({ title: z.string().trim().min(1).max(200) });
/** `rename` request. */
export type RenameRequest = z.infer<typeof RenameRequest>;

/** `aw.rt.<sid>.answer_permission`: a frontend's answer to `permission_requested` (R1.4). */
export const AnswerPermissionRequest = z.strictObject({
  requestId: z.string().min(1),
  decision: PermissionDecision,
  reason: z.string().optional(),
});
/** `answer_permission` request. */
export type AnswerPermissionRequest = z.infer<typeof AnswerPermissionRequest>;

/** Requests without fields: `create`, `interrupt`, `close`. */
export const EmptyRequest = z.strictObject({ wait: z.boolean().optional() });
/** An empty request. */
export type EmptyRequest = z.infer<typeof EmptyRequest>;

/** The operations answered on `aw.rt.<sid>.<op>`. */
export const RUNTIME_OPS = [
  'create',
  'prompt',
  'interrupt',
  'rename',
  'answer_permission',
  'close',
] as const;
/** One operation name. */
export type RuntimeOp = (typeof RUNTIME_OPS)[number];

/** True for a known operation name. */
export function isRuntimeOp(op: string): op is RuntimeOp {
  return (RUNTIME_OPS as readonly string[]).includes(op);
}

/** A typed error reply. */
export interface ErrorReply {
  readonly ok: false;
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly detail?: Readonly<Record<string, unknown>>;
  };
}
