import { HEADERS, type Names, type PersistenceCommand } from '@agentwire/contracts';
import { injectTraceContext } from '@agentwire/telemetry';
import { JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type Context, context } from '@opentelemetry/api';
import { BusError } from './bus-error.ts';

/** Options of {@link publishCommand}. */
export interface PublishCommandOptions {
  /** Trace context carried as `traceparent` (default: the active one). */
  readonly traceContext?: Context;
  /**
   * A republish of the same command past the broker's de-duplication window or its
   * de-duplication itself (docs/decisions/0050): `Nats-Msg-Id` becomes
   * `<commandId>:<attempt>`, which the persistence worker accepts as that command.
   */
  readonly attempt?: number | string;
}

/** The outcome of {@link publishCommand}. */
export type PublishCommandResult =
  | { readonly kind: 'ok'; readonly streamSequence: number }
  | { readonly kind: 'duplicate'; readonly streamSequence: number };

/**
 * Publishes a persistence command (R7; the contracts' `PersistenceCommand`, discriminated
 * on `kind`) as JSON to `<prefix>.persist.<sessionId>` on the commands work queue, with
 * `Nats-Msg-Id` = `commandId` (or `<commandId>:<attempt>`), `Aw-Type` = its `kind` (so
 * consumers can route without parsing) and the trace context. Validate the command with
 * the contracts' parser before calling. A repeat within the broker's duplicate window
 * returns `duplicate` and adds nothing to the stream. Throws {@link BusError}
 * `publish_failed` on broker errors (retryable unless the broker answered with an error).
 */
export async function publishCommand(
  js: JetStreamClient,
  n: Names,
  command: PersistenceCommand,
  options: PublishCommandOptions = {},
): Promise<PublishCommandResult> {
  const h = natsHeaders();
  h.set(
    HEADERS.msgId,
    options.attempt === undefined ? command.commandId : `${command.commandId}:${options.attempt}`,
  );
  h.set(HEADERS.eventType, command.kind);
  injectTraceContext(h, options.traceContext ?? context.active());
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
