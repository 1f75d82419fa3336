import { HEADERS, type Names } from '@agentwire/contracts';
import { injectTraceContext } from '@agentwire/telemetry';
import { JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type Context, context } from '@opentelemetry/api';
import { BusError } from './bus-error.ts';

/** What {@link publishCommand} needs of a persistence command (R7). */
export interface PublishableCommand {
  /** Unique command id: the broker de-duplicates on it (`Nats-Msg-Id`). */
  readonly commandId: string;
  readonly sessionId: string;
  /** The command kind, sent as `Aw-Type` so consumers can route without parsing. */
  readonly type: string;
}

/** The outcome of {@link publishCommand}. */
export type PublishCommandResult =
  | { readonly kind: 'ok'; readonly streamSequence: number }
  | { readonly kind: 'duplicate'; readonly streamSequence: number };

/**
 * Publishes a persistence command (R7) as JSON to `<prefix>.persist.<sessionId>` on the
 * commands work queue, with `Nats-Msg-Id` = `commandId` and the active trace context.
 * Validate the command with the contracts' parser before calling. Throws {@link BusError}
 * `publish_failed` on broker errors (retryable unless the broker answered with an error).
 */
export async function publishCommand(
  js: JetStreamClient,
  n: Names,
  command: PublishableCommand,
  traceContext: Context = context.active(),
): Promise<PublishCommandResult> {
  const h = natsHeaders();
  h.set(HEADERS.msgId, command.commandId);
  h.set(HEADERS.eventType, command.type);
  injectTraceContext(h, traceContext);
  const subject = n.commandSubject(command.sessionId);
  try {
    const ack = await js.publish(subject, JSON.stringify(command), { headers: h });
    return { kind: ack.duplicate ? 'duplicate' : 'ok', streamSequence: ack.seq };
  } catch (error) {
    throw new BusError(`publishing command ${command.commandId} on ${subject} failed`, {
      code: 'publish_failed',
      retryable: !(error instanceof JetStreamApiError),
      cause: error,
    });
  }
}
