/**
 * Persistence commands (SPEC.md R1.3, R7, R8, R9.9; DESIGN.md `AW_COMMANDS`): what the
 * runtime asks the persistence worker to write, one discriminated union on `kind`.
 */
import { z } from 'zod';
import { AssistantMessage, UserMessage } from '../messages/message.ts';
import { Part } from '../parts/part.ts';
import { FilePart, TextPart } from '../parts/parts.ts';
import { TimelinePart } from '../parts/timeline-part.ts';
import { EpochMs, SyntheticSource, TitleSource } from '../payloads/common.ts';
import { SessionId, TraceId } from '../session-event.ts';

/** Fields of every command. `commandId` is the idempotency key (and `Nats-Msg-Id`). */
const commandFields = {
  commandId: z.string().min(1),
  sessionId: SessionId,
  /** When the runtime issued the command (epoch ms). */
  issuedAt: EpochMs,
  traceId: TraceId.optional(),
};

/**
 * Version of a row write: strictly increasing per row; the store applies a write only when
 * its version is newer than the stored one (`decideVersionedWrite`, decision 0011).
 */
const version = z.number().int().nonnegative();

type Ctx = z.core.$RefinementCtx;

function mustMatch(ctx: Ctx, actual: string, expected: string, path: PropertyKey[], what: string) {
  if (actual !== expected) {
    ctx.addIssue({ code: 'custom', path, message: `${what} ${actual} does not match ${expected}` });
  }
}

function checkParts(
  ctx: Ctx,
  parts: readonly { sessionId: string; messageId: string }[],
  sessionId: string,
  messageId: string,
) {
  parts.forEach((part, i) => {
    mustMatch(ctx, part.sessionId, sessionId, ['parts', i, 'sessionId'], 'part session');
    mustMatch(ctx, part.messageId, messageId, ['parts', i, 'messageId'], 'part message');
  });
}

/** A user message part at turn start or guide injection: text or file (R7.3). */
export const UserMessagePart = z.discriminatedUnion('type', [TextPart, FilePart]);
export type UserMessagePart = z.infer<typeof UserMessagePart>;

/**
 * `save_user_message` (R7.3): the message and its parts. With `promoteInputId`, the ledger
 * row is marked `promoted` in the same transaction (R14.2), and the runtime emits
 * `session_input_promoted` only after the confirmation.
 */
const SaveUserMessageCommand = z
  .object({
    ...commandFields,
    kind: z.literal('save_user_message'),
    version,
    message: UserMessage,
    parts: z.array(UserMessagePart),
    promoteInputId: z.string().min(1).optional(),
    /** The session's latest sequence number at promotion (R14.1). */
    promotedSequenceNumber: z.number().int().nonnegative().optional(),
  })
  .superRefine((c, ctx) => {
    mustMatch(ctx, c.message.sessionId, c.sessionId, ['message', 'sessionId'], 'message session');
    checkParts(ctx, c.parts, c.sessionId, c.message.id);
  });

/** `save_assistant_message` (R7.4): upsert by message id under the version rule. */
const SaveAssistantMessageCommand = z
  .object({
    ...commandFields,
    kind: z.literal('save_assistant_message'),
    version,
    message: AssistantMessage,
  })
  .superRefine((c, ctx) => {
    mustMatch(ctx, c.message.sessionId, c.sessionId, ['message', 'sessionId'], 'message session');
  });

/**
 * `save_part` (R7.1, R7.5): upsert by part id under the version rule; a tool part's status
 * never moves back (`isToolPartTransitionAllowed`), whatever the version.
 */
export const SavePartCommand = z
  .object({ ...commandFields, kind: z.literal('save_part'), version, part: Part })
  .superRefine((c, ctx) => {
    mustMatch(ctx, c.part.sessionId, c.sessionId, ['part', 'sessionId'], 'part session');
  });
/** `save_part`. */
export type SavePartCommand = z.infer<typeof SavePartCommand>;

/**
 * `save_synthetic_notice` (R8): a user-role message flagged `synthetic: true` with its
 * `source` (R8.1) and the semantics and anchor the domain rules give it (R8.2-R8.4).
 */
const SaveSyntheticNoticeCommand = z
  .object({
    ...commandFields,
    kind: z.literal('save_synthetic_notice'),
    version,
    message: UserMessage.extend({ synthetic: z.literal(true), source: SyntheticSource }),
    parts: z.array(TextPart),
  })
  .superRefine((c, ctx) => {
    mustMatch(ctx, c.message.sessionId, c.sessionId, ['message', 'sessionId'], 'message session');
    checkParts(ctx, c.parts, c.sessionId, c.message.id);
  });

/**
 * `save_timeline_divider` (R7.7): a timeline part and the assistant message it hangs on,
 * whose semantics must say `timeline_event` (visible to the UI, never to the model).
 */
const SaveTimelineDividerCommand = z
  .object({
    ...commandFields,
    kind: z.literal('save_timeline_divider'),
    version,
    message: AssistantMessage,
    part: TimelinePart,
  })
  .superRefine((c, ctx) => {
    mustMatch(ctx, c.message.sessionId, c.sessionId, ['message', 'sessionId'], 'message session');
    mustMatch(ctx, c.part.sessionId, c.sessionId, ['part', 'sessionId'], 'part session');
    mustMatch(ctx, c.part.messageId, c.message.id, ['part', 'messageId'], 'part message');
    const kind = c.message.semantics?.kind;
    if (kind !== 'timeline_event') {
      const message = `must be timeline_event (R7.7), received ${String(kind)}`;
      ctx.addIssue({ code: 'custom', path: ['message', 'semantics', 'kind'], message });
    }
  });

/**
 * `ensure_session` (R13.2): create the session row if absent, with the first input, the
 * title of R9.2, cwd, root, parent and task type; a no-op when the row exists. A session
 * renamed before its first prompt is born with the rename (`custom`) and no first input
 * (R9.3; docs/decisions/0130).
 */
export const EnsureSessionCommand = z.object({
  ...commandFields,
  kind: z.literal('ensure_session'),
  session: z.object({
    parentSessionId: z.string().nullable(),
    /** Absent or `interactive` for interactive sessions (R9.5). */
    taskType: z.string().optional(),
    title: z.string(),
    titleSource: TitleSource,
    /** Null for a session born by a rename, before any input. */
    firstInput: z.string().nullable(),
    cwd: z.string(),
    root: z.string(),
    createdAt: EpochMs,
  }),
});
/** `ensure_session`. */
export type EnsureSessionCommand = z.infer<typeof EnsureSessionCommand>;

/**
 * `update_title` (R9.3, R9.9, R16.4): compare-and-set. Applied only while the stored title
 * source is one of `expectedSources` and, when `expectedFirstInput` is given, the stored
 * first input still equals it (the first question is unedited); otherwise dropped.
 */
const UpdateTitleCommand = z.object({
  ...commandFields,
  kind: z.literal('update_title'),
  title: z.string().min(1),
  source: TitleSource,
  expectedSources: z.array(TitleSource).min(1),
  expectedFirstInput: z.string().optional(),
  messageId: z.string().optional(),
});

/**
 * `close_input` (R14.2, docs/decisions/0237): closes a ledger row `discarded` with a reason,
 * only while it is `admitted`; `condition_failed` when it was not (promoted meanwhile, or
 * closed). A takeover sends it, and awaits its confirmation, for an input whose
 * promotion the previous owner may have published: applied after that promotion, its
 * answer says which of the two won.
 */
const CloseInputCommand = z.object({
  ...commandFields,
  kind: z.literal('close_input'),
  inputId: z.string().min(1),
  reason: z.string().min(1),
});

/**
 * `copy_transcript` (docs/decisions/0240): a fork's transcript, the chain `messageIds` of
 * `fromSessionId` (root first) copied with their parts into this command's session, each id
 * suffixed with `idSuffix`; `condition_failed` when a message is not the source session's.
 */
const CopyTranscriptCommand = z.object({
  ...commandFields,
  kind: z.literal('copy_transcript'),
  fromSessionId: z.string().min(1),
  messageIds: z.array(z.string().min(1)).min(1).max(100_000),
  idSuffix: z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/),
});

/**
 * `import_messages` (docs/decisions/0241): messages of an imported transcript, each with
 * its parts, written as they are (already of this command's session, ids already its own)
 * in one transaction; a redelivery changes nothing. An import sends them in chunks.
 */
const ImportMessagesCommand = z.object({
  ...commandFields,
  kind: z.literal('import_messages'),
  entries: z
    .array(z.object({ message: z.union([UserMessage, AssistantMessage]), parts: z.array(Part) }))
    .min(1),
});

/**
 * `mark_first_input_edited` (R9.9, docs/decisions/0239): the session's first question was
 * rewound away; no generated title applies from now on.
 */
const MarkFirstInputEditedCommand = z.object({
  ...commandFields,
  kind: z.literal('mark_first_input_edited'),
});

/** Every command schema by kind; a missing kind is a compile error. */
export const PERSISTENCE_COMMAND_SCHEMAS = {
  save_user_message: SaveUserMessageCommand,
  save_assistant_message: SaveAssistantMessageCommand,
  save_part: SavePartCommand,
  save_synthetic_notice: SaveSyntheticNoticeCommand,
  save_timeline_divider: SaveTimelineDividerCommand,
  ensure_session: EnsureSessionCommand,
  update_title: UpdateTitleCommand,
  close_input: CloseInputCommand,
  copy_transcript: CopyTranscriptCommand,
  import_messages: ImportMessagesCommand,
  mark_first_input_edited: MarkFirstInputEditedCommand,
} as const;

/** The kind of a persistence command. */
export type PersistenceCommandKind = keyof typeof PERSISTENCE_COMMAND_SCHEMAS;

/** A persistence command of kind `K`. */
export type PersistenceCommandOf<K extends PersistenceCommandKind> = z.infer<
  (typeof PERSISTENCE_COMMAND_SCHEMAS)[K]
>;

/** Any persistence command, discriminated on `kind`. */
export type PersistenceCommand = {
  [K in PersistenceCommandKind]: PersistenceCommandOf<K>;
}[PersistenceCommandKind];

/** True when `kind` names a persistence command. */
export function isPersistenceCommandKind(kind: string): kind is PersistenceCommandKind {
  return Object.hasOwn(PERSISTENCE_COMMAND_SCHEMAS, kind);
}
