import type {
  Part,
  PersistenceCommand,
  PersistenceCommandKind,
  PersistenceCommandOf,
  PersistenceOutcome,
} from '@agentwire/contracts';
import type { Kysely, Transaction } from 'kysely';
import { copyTranscript } from './copy-transcript.ts';
import { closeInput } from './ledger-repository.ts';
import {
  type MessageInput,
  type PartInput,
  saveMessageWithParts,
  savePart,
  saveUserMessage,
  type VersionedWriteOutcome,
} from './messages-repository.ts';
import type { Database } from './schema.ts';
import { ensureSession, markFirstInputEdited, updateTitle } from './sessions-repository.ts';
import { inTransaction } from './transaction.ts';

/**
 * What applying a command did: the confirmation's outcome (`applied`, `duplicate`,
 * `stale`, `condition_failed`) and, for a refused one, why.

 *
 * @internal Exported for its tests.
 */
export interface CommandResult {
  readonly outcome: PersistenceOutcome;
  /** Why a `condition_failed` command was refused, e.g. `input_not_admitted:cancelled`. */
  readonly reason?: string;
}

/** The row of a contracts `Part`: its tool status, when it is a tool part. */
export function partInput(part: Part, version: number): PartInput {
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

/** The row of a contracts message (`time.created` is its creation time). */
export function messageInput(
  message: { id: string; sessionId: string; role: 'user' | 'assistant'; time: { created: number } },
  version: number,
): MessageInput {
  return {
    id: message.id,
    sessionId: message.sessionId,
    role: message.role,
    data: message,
    version,
    createdAt: message.time.created,
  };
}

/**
 * Writes an imported transcript's messages with their parts as they are (0241), at
 * version 1: a repeat writes nothing. True when anything was written.
 */
export async function importMessages(
  db: Kysely<Database>,
  entries: PersistenceCommandOf<'import_messages'>['entries'],
): Promise<boolean> {
  let written = false;
  for (const e of entries) {
    const { outcome } = await saveMessageWithParts(db, {
      message: messageInput(e.message, 1),
      parts: e.parts.map((p) => partInput(p, 1)),
    });
    if (outcome === 'applied') written = true;
  }
  return written;
}

const fromVersioned = (o: VersionedWriteOutcome): CommandResult => ({ outcome: o });

type Handler<K extends PersistenceCommandKind> = (
  trx: Transaction<Database>,
  command: PersistenceCommandOf<K>,
) => Promise<CommandResult>;

/** R7's commands: one handler per kind (the compiler rejects a missing one). */
const HANDLERS: { readonly [K in PersistenceCommandKind]: Handler<K> } = {
  ensure_session: async (trx, c) => {
    const { created } = await ensureSession(trx, {
      id: c.sessionId,
      parentId: c.session.parentSessionId,
      taskType: c.session.taskType,
      title: c.session.title,
      titleSource: c.session.titleSource,
      firstInput: c.session.firstInput,
      cwd: c.session.cwd,
      root: c.session.root,
      createdAt: c.session.createdAt,
    });
    return { outcome: created ? 'applied' : 'duplicate' };
  },
  save_user_message: async (trx, c) => {
    const result = await saveUserMessage(trx, {
      message: messageInput(c.message, c.version),
      parts: c.parts.map((p) => partInput(p, c.version)),
      promote:
        c.promoteInputId === undefined
          ? undefined
          : { id: c.promoteInputId, sequence: c.promotedSequenceNumber, at: c.issuedAt },
    });
    if (!result.ok)
      return { outcome: 'condition_failed', reason: `${result.reason}:${result.status}` };
    return { outcome: result.promoted === 'already_promoted' ? 'duplicate' : 'applied' };
  },
  save_assistant_message: async (trx, c) =>
    fromVersioned(
      (await saveMessageWithParts(trx, { message: messageInput(c.message, c.version), parts: [] }))
        .outcome,
    ),
  save_part: async (trx, c) =>
    fromVersioned((await savePart(trx, partInput(c.part, c.version))).outcome),
  save_synthetic_notice: async (trx, c) =>
    fromVersioned(
      (
        await saveMessageWithParts(trx, {
          message: messageInput(c.message, c.version),
          parts: c.parts.map((p) => partInput(p, c.version)),
        })
      ).outcome,
    ),
  save_timeline_divider: async (trx, c) =>
    fromVersioned(
      (
        await saveMessageWithParts(trx, {
          message: messageInput(c.message, c.version),
          parts: [partInput(c.part, c.version)],
        })
      ).outcome,
    ),
  update_title: async (trx, c) => {
    const result = await updateTitle(trx, {
      sessionId: c.sessionId,
      title: c.title,
      source: c.source,
      expectedSources: c.expectedSources,
      expectedFirstInput: c.expectedFirstInput,
      updatedAt: c.issuedAt,
    });
    return result.applied
      ? { outcome: 'applied' }
      : { outcome: 'condition_failed', reason: result.reason };
  },
  close_input: async (trx, c) => {
    const { closed } = await closeInput(trx, {
      id: c.inputId,
      sessionId: c.sessionId,
      status: 'discarded',
      reason: c.reason,
      at: c.issuedAt,
    });
    return closed
      ? { outcome: 'applied' }
      : { outcome: 'condition_failed', reason: 'input_not_admitted' };
  },
  mark_first_input_edited: async (trx, c) => {
    await markFirstInputEdited(trx, c.sessionId);
    return { outcome: 'applied' };
  },
  import_messages: async (trx, c) => ({
    outcome: (await importMessages(trx, c.entries)) ? 'applied' : 'duplicate',
  }),
  copy_transcript: async (trx, c) => {
    const result = await copyTranscript(trx, {
      fromSessionId: c.fromSessionId,
      toSessionId: c.sessionId,
      messageIds: c.messageIds,
      idSuffix: c.idSuffix,
    });
    if (!result.copied) {
      return { outcome: 'condition_failed', reason: `unknown_messages:${result.missing.length}` };
    }
    return { outcome: result.messages > 0 || result.parts > 0 ? 'applied' : 'duplicate' };
  },
};

/**
 * Applies one persistence command (R7) in one transaction, idempotently: repeating it
 * gives `duplicate` (or `stale` for a versioned write overtaken by a newer one) and
 * changes nothing. Compose with {@link runOnce} to remember the outcome per `commandId`.
 */
export async function applyPersistenceCommand(
  db: Kysely<Database>,
  command: PersistenceCommand,
): Promise<CommandResult> {
  return inTransaction(db, `applyPersistenceCommand(${command.kind})`, (trx) => {
    const handler = HANDLERS[command.kind] as Handler<PersistenceCommandKind>;
    return handler(trx, command as never);
  });
}
