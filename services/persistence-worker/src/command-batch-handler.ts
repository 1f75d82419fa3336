import { BlobStore, resolveBlobs } from '@agentwire/bus';
import type { Names, PersistenceCommand, PersistenceConfirmation } from '@agentwire/contracts';
import {
  applyMessageCommands,
  applyUserMessageAlone,
  type Database,
  inTransaction,
  isMessageCommand,
  type MessageCommand,
  withStoreError,
} from '@agentwire/store';
import { ATTRS } from '@agentwire/telemetry';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Kysely } from 'kysely';
import { applyCommand, messageConfirmation } from './apply-command.ts';
import type { BatchHandler } from './batch-consumer.ts';
import { decodeCommandMessage } from './decode-command-message.ts';
import { inputLockKey, lockKeys } from './lock-keys.ts';

/** What the commands handler needs. */
export interface CommandBatchHandlerOptions {
  readonly db: Kysely<Database>;
  readonly nc: NatsConnection;
  readonly names: Names;
  readonly maxMessageBytes: number;
}

/** A command with the confirmation its apply produced. */
interface Applied {
  readonly command: PersistenceCommand;
  confirmation?: PersistenceConfirmation;
}

/**
 * The commands consumer's handler (R7, DESIGN.md flow 1): reads back the fields a command
 * offloaded to the blob store (docs/decisions/0162), applies a batch of commands in
 * one transaction, or a prompt's user message alone in one statement (`applyCommandBatch`,
 * docs/decisions/0247) (the message commands with the store's set-based `applyMessageCommands`,
 * with the same result as one by one in stream order), then publishes each command's confirmation on
 * `<prefix>.confirm.<sid>` with core NATS, after the commit and before the ack
 * (docs/decisions/0050). A redelivered command is confirmed again.
 */
export function commandBatchHandler(options: CommandBatchHandlerOptions): BatchHandler<Applied> {
  const encoder = new TextEncoder();
  // A command's fields too large for its message are read back before it is applied (0162).
  const blobs = BlobStore.reader(options.nc, options.names);
  return {
    decode: (msg) => {
      const decoded = decodeCommandMessage(msg, options);
      return decoded.kind === 'apply'
        ? { kind: 'apply', value: { command: decoded.value } }
        : decoded;
    },
    attributes: ({ command }) => ({
      [ATTRS.sessionId]: command.sessionId,
      'agentwire.command.kind': command.kind,
    }),
    applyAll: async (items) => {
      const commands = await Promise.all(items.map((i) => resolveBlobs(i.command, blobs)));
      const confirmations = await applyCommandBatch(options.db, commands);
      for (const [i, item] of items.entries()) {
        const confirmation = confirmations[i];
        if (confirmation !== undefined) item.confirmation = confirmation;
      }
    },
    afterCommit: async (items) => {
      for (const { command, confirmation } of items) {
        if (confirmation === undefined) continue;
        options.nc.publish(
          options.names.confirmSubject(command.sessionId),
          encoder.encode(JSON.stringify(confirmation)),
        );
      }
    },
  };
}

/**
 * Applies a batch of commands and returns one confirmation per command, in order. A prompt's
 * user message alone in its batch (nothing waiting behind it) is one statement without a
 * transaction block (`applyUserMessageAlone`, docs/decisions/0247); any other batch, or a
 * promotion that did not settle, is one transaction that first locks the ledger rows its
 * promotions write (`lockKeys`), then {@link commandBatchApply}.
 *
 * @internal Exported for its tests.
 */
export async function applyCommandBatch(
  db: Kysely<Database>,
  commands: readonly PersistenceCommand[],
): Promise<PersistenceConfirmation[]> {
  const [alone] = commands;
  if (commands.length === 1 && alone?.kind === 'save_user_message') {
    const result = await withStoreError('apply 1 user message', () =>
      applyUserMessageAlone(db, alone),
    );
    if (result !== undefined) return [messageConfirmation(alone, result)];
  }
  return inTransaction(db, `apply ${commands.length} command(s)`, async (trx) => {
    await lockKeys(
      trx,
      commands.flatMap((c) =>
        c.kind === 'save_user_message' && c.promoteInputId !== undefined
          ? [inputLockKey(c.sessionId, c.promoteInputId)]
          : [],
      ),
    );
    return commandBatchApply(trx, commands);
  });
}

/**
 * Applies a batch of commands inside the caller's transaction and returns one confirmation
 * per command, in order: the message commands set-based with the store's
 * `applyMessageCommands` (docs/decisions/0035), then the session commands (`ensure_session`,
 * `update_title`) one by one, sorted by session and in stream order within a session, so
 * that session rows are locked last and in one order (`lockKeys`). The two groups touch
 * disjoint tables, so the result is that of applying every command alone in stream order.
 *
 * @internal Exported for its tests.
 */
export async function commandBatchApply(
  trx: Kysely<Database>,
  commands: readonly PersistenceCommand[],
): Promise<PersistenceConfirmation[]> {
  const confirmations: PersistenceConfirmation[] = new Array(commands.length);
  const batch: { index: number; command: MessageCommand }[] = [];
  const sessionCommands: { index: number; command: PersistenceCommand }[] = [];
  for (const [index, command] of commands.entries()) {
    if (isMessageCommand(command)) batch.push({ index, command });
    else sessionCommands.push({ index, command });
  }
  const results = await applyMessageCommands(
    trx,
    batch.map((b) => b.command),
  );
  for (const [i, { index, command }] of batch.entries()) {
    const result = results[i];
    if (result === undefined) throw new Error('applyMessageCommands returned too few results');
    confirmations[index] = messageConfirmation(command, result);
  }
  sessionCommands.sort((a, b) =>
    a.command.sessionId === b.command.sessionId
      ? a.index - b.index
      : a.command.sessionId < b.command.sessionId
        ? -1
        : 1,
  );
  for (const { index, command } of sessionCommands) {
    confirmations[index] = await applyCommand(trx, command);
  }
  return confirmations;
}
