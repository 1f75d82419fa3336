import type { Names, PersistenceCommand, PersistenceConfirmation } from '@agentwire/contracts';
import { type Database, inTransaction } from '@agentwire/store';
import { ATTRS } from '@agentwire/telemetry';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Kysely } from 'kysely';
import { applyCommand } from './apply-command.ts';
import type { BatchHandler } from './batch-consumer.ts';
import { decodeCommandMessage } from './decode-command-message.ts';
import { lockSessions } from './lock-sessions.ts';

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
 * The commands consumer's handler (R7, DESIGN.md flow 1): applies a batch of commands in
 * one transaction, in stream order, then publishes each command's confirmation on
 * `<prefix>.confirm.<sid>` with core NATS, after the commit and before the ack
 * (docs/decisions/0050). A redelivered command is confirmed again.
 */
export function commandBatchHandler(options: CommandBatchHandlerOptions): BatchHandler<Applied> {
  const encoder = new TextEncoder();
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
      await inTransaction(options.db, `apply ${items.length} command(s)`, async (trx) => {
        await lockSessions(
          trx,
          items.map((i) => i.command.sessionId),
        );
        for (const item of items) item.confirmation = await applyCommand(trx, item.command);
      });
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
