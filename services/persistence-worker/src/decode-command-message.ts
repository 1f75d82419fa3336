import {
  decodePersistenceCommand,
  HEADERS,
  type Names,
  type PersistenceCommand,
} from '@agentwire/contracts';
import type { JsMsg } from '@nats-io/jetstream';
import { type Decoded, invalid } from './decoded-message.ts';

/**
 * Decodes a persistence command from `<prefix>.persist.<sid>` (R7): size limit, JSON,
 * kind and schema (the contracts' parser), then cross-checks that the subject's session,
 * the body's `sessionId` and the `Nats-Msg-Id` (when present) agree with the command.
 */
export function decodeCommandMessage(
  msg: JsMsg,
  options: { readonly maxMessageBytes: number; readonly names: Names },
): Decoded<PersistenceCommand> {
  if (msg.data.length > options.maxMessageBytes) {
    return invalid(
      'oversized',
      `message of ${msg.data.length} bytes exceeds the limit of ${options.maxMessageBytes} bytes`,
    );
  }
  const parsed = decodePersistenceCommand(msg.data);
  if (!parsed.ok) return invalid(parsed.error.code, parsed.error.message);
  const command = parsed.command;
  const subjectSession = options.names.parseCommandSubject(msg.subject);
  if (subjectSession !== command.sessionId) {
    return invalid(
      'subject_mismatch',
      `subject ${msg.subject} names session ${JSON.stringify(subjectSession)} but the command's sessionId is ${JSON.stringify(command.sessionId)}`,
    );
  }
  const msgId = msg.headers?.get(HEADERS.msgId) ?? '';
  if (msgId !== '' && msgId !== command.commandId && !msgId.startsWith(`${command.commandId}:`)) {
    return invalid(
      'header_mismatch',
      `${HEADERS.msgId} ${JSON.stringify(msgId)} is not the commandId ${JSON.stringify(command.commandId)}`,
    );
  }
  return { kind: 'apply', value: command };
}
