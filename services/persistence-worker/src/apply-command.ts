import type {
  Part,
  PersistenceCommand,
  PersistenceCommandKind,
  PersistenceCommandOf,
  PersistenceConfirmation,
  PersistenceOutcome,
} from '@agentwire/contracts';
import {
  type Database,
  ensureSession,
  type PartInput,
  saveMessage,
  saveMessageWithParts,
  savePart,
  saveUserMessage,
  updateTitle,
} from '@agentwire/store';
import type { Kysely } from 'kysely';

type Handler<K extends PersistenceCommandKind> = (
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

function partInput(part: Part, version: number): PartInput {
  return {
    id: part.id,
    messageId: part.messageId,
    sessionId: part.sessionId,
    type: part.type,
    status: part.type === 'tool' ? part.state.status : undefined,
    data: part,
    version,
  };
}

/**
 * R7's commands, one handler per kind (a table keyed by the full union). Each runs inside
 * the caller's transaction and returns the confirmation to publish after the commit. The
 * store's writes are versioned and forward-only, so repeating or reordering commands
 * changes nothing (a tool part never moves back, R7.5). `applied: false` from the store
 * (an equal version) is `duplicate`, an older one `stale`.
 */
const HANDLERS: { readonly [K in PersistenceCommandKind]: Handler<K> } = {
  save_user_message: async (db, c) => {
    const outcome = await saveUserMessage(db, {
      message: {
        id: c.message.id,
        sessionId: c.sessionId,
        role: 'user',
        data: c.message,
        version: c.version,
        createdAt: c.message.time.created,
      },
      parts: c.parts.map((p) => partInput(p, c.version)),
      promote:
        c.promoteInputId === undefined
          ? undefined
          : { id: c.promoteInputId, sequence: c.promotedSequenceNumber, at: c.issuedAt },
    });
    if (outcome.ok) return ok(c, outcome.promoted !== 'already_promoted');
    return {
      commandId: c.commandId,
      sessionId: c.sessionId,
      ok: false,
      error: {
        code: outcome.reason,
        message: `input ${c.promoteInputId} is ${outcome.status}${outcome.messageId === null ? '' : ` (message ${outcome.messageId})`}, not admitted: nothing written (R14.2)`,
        retryable: false,
      },
    };
  },
  save_assistant_message: async (db, c) => {
    const { outcome } = await saveMessage(db, {
      id: c.message.id,
      sessionId: c.sessionId,
      role: 'assistant',
      data: c.message,
      version: c.version,
      createdAt: c.message.time.created,
    });
    return ok(c, outcome);
  },
  save_part: async (db, c) => ok(c, (await savePart(db, partInput(c.part, c.version))).outcome),
  save_synthetic_notice: async (db, c) => {
    const { outcome } = await saveMessageWithParts(db, {
      message: {
        id: c.message.id,
        sessionId: c.sessionId,
        role: 'user',
        data: c.message,
        version: c.version,
        createdAt: c.message.time.created,
      },
      parts: c.parts.map((p) => partInput(p, c.version)),
    });
    return ok(c, outcome);
  },
  save_timeline_divider: async (db, c) => {
    const { outcome } = await saveMessageWithParts(db, {
      message: {
        id: c.message.id,
        sessionId: c.sessionId,
        role: 'assistant',
        data: c.message,
        version: c.version,
        createdAt: c.message.time.created,
      },
      parts: [partInput(c.part, c.version)],
    });
    return ok(c, outcome);
  },
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
};

/**
 * Applies one persistence command (R7; R7.3 and R14.2 for the user message with its ledger
 * promotion, which the store writes in one transaction) and returns its confirmation.
 */
export async function applyCommand(
  db: Kysely<Database>,
  command: PersistenceCommand,
): Promise<PersistenceConfirmation> {
  const handler = HANDLERS[command.kind] as Handler<PersistenceCommandKind>;
  return handler(db, command as never);
}
