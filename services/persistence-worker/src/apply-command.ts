import type {
  PersistenceCommand,
  PersistenceCommandOf,
  PersistenceConfirmation,
  PersistenceOutcome,
} from '@agentwire/contracts';
import {
  applyMessageCommands,
  closeInput,
  copyTranscript,
  type Database,
  ensureSession,
  importMessages,
  isMessageCommand,
  type MessageCommand,
  type MessageCommandResult,
  markFirstInputEdited,
  updateTitle,
} from '@agentwire/store';
import type { Kysely } from 'kysely';

type SessionCommandKind =
  | 'ensure_session'
  | 'update_title'
  | 'close_input'
  | 'copy_transcript'
  | 'import_messages'
  | 'mark_first_input_edited';

type Handler<K extends SessionCommandKind> = (
  db: Kysely<Database>,
  command: PersistenceCommandOf<K>,
) => Promise<PersistenceConfirmation>;

const ok = (
  c: PersistenceCommand,
  outcome: PersistenceOutcome | boolean,
): PersistenceConfirmation => ({
  commandId: c.commandId,
  sessionId: c.sessionId,
  ok: true,
  outcome: typeof outcome === 'string' ? outcome : outcome ? 'applied' : 'duplicate',
});

/**
 * The confirmation of a message command from the store's `applyMessageCommands` result
 * (R7): `ok` with its outcome, or, for a user message whose ledger promotion was refused
 * (R7.3, R14.2), `ok: false` naming the row's state; nothing was written then.
 */
export function messageConfirmation(
  c: MessageCommand,
  result: MessageCommandResult,
): PersistenceConfirmation {
  if (result.refused === undefined) return ok(c, result.outcome);
  const promoteInputId = c.kind === 'save_user_message' ? c.promoteInputId : undefined;
  const { status, messageId } = result.refused;
  return {
    commandId: c.commandId,
    sessionId: c.sessionId,
    ok: false,
    error: {
      code: 'input_not_admitted',
      message: `input ${promoteInputId} is ${status}${messageId === null ? '' : ` (message ${messageId})`}, not admitted: nothing written (R14.2)`,
      retryable: false,
    },
  };
}

/**
 * The session commands (R13.2 `ensure_session`, R9 `update_title`, R14.2 `close_input`),
 * one handler per kind.
 * Each runs inside the caller's transaction and returns the confirmation to publish after
 * the commit. The message commands go through the store's set-based `applyMessageCommands`.
 */
const HANDLERS: { readonly [K in SessionCommandKind]: Handler<K> } = {
  ensure_session: async (db, c) => {
    const s = c.session;
    const { created } = await ensureSession(db, {
      id: c.sessionId,
      parentId: s.parentSessionId,
      taskType: s.taskType ?? null,
      title: s.title,
      titleSource: s.titleSource,
      firstInput: s.firstInput,
      cwd: s.cwd,
      root: s.root,
      createdAt: s.createdAt,
    });
    return ok(c, created);
  },
  update_title: async (db, c) => {
    const outcome = await updateTitle(db, {
      sessionId: c.sessionId,
      title: c.title,
      source: c.source,
      expectedSources: c.expectedSources,
      ...(c.expectedFirstInput === undefined ? {} : { requireFirstInputUnedited: true }),
      updatedAt: c.issuedAt,
    });
    if (outcome.applied) return ok(c, outcome.changed);
    return {
      commandId: c.commandId,
      sessionId: c.sessionId,
      ok: true,
      outcome: 'condition_failed',
    };
  },
  // Only an admitted row closes (R14.2); a promoted one answers condition_failed (0237).
  close_input: async (db, c) => {
    const { closed } = await closeInput(db, {
      id: c.inputId,
      sessionId: c.sessionId,
      status: 'discarded',
      reason: c.reason,
      at: c.issuedAt,
    });
    return closed ? ok(c, 'applied') : { ...ok(c, 'applied'), outcome: 'condition_failed' };
  },
  // A fork's transcript (0240): applied, a duplicate when already copied, or refused.
  // An imported transcript's chunk (0241): applied, or a duplicate when already written.
  import_messages: async (db, c) => ok(c, await importMessages(db, c.entries)),
  // R9.9: the first question was rewound away (0239); repeating it changes nothing.
  mark_first_input_edited: async (db, c) => {
    await markFirstInputEdited(db, c.sessionId);
    return ok(c, 'applied');
  },
  copy_transcript: async (db, c) => {
    const result = await copyTranscript(db, {
      fromSessionId: c.fromSessionId,
      toSessionId: c.sessionId,
      messageIds: c.messageIds,
      idSuffix: c.idSuffix,
    });
    if (!result.copied) return { ...ok(c, 'applied'), outcome: 'condition_failed' };
    return ok(c, result.messages > 0 || result.parts > 0);
  },
};

/**
 * Applies one persistence command (R7; R7.3 and R14.2 for the user message with its ledger
 * promotion, which the store writes in one transaction) and returns its confirmation.
 */
export async function applyCommand(
  db: Kysely<Database>,
  command: PersistenceCommand,
): Promise<PersistenceConfirmation> {
  if (isMessageCommand(command)) {
    const [result] = await applyMessageCommands(db, [command]);
    if (result === undefined) throw new Error('applyMessageCommands returned no result');
    return messageConfirmation(command, result);
  }
  const handler = HANDLERS[command.kind] as Handler<SessionCommandKind>;
  return handler(db, command as never);
}
