import { HEADERS, type Names, type PersistenceCommand } from '@agentwire/contracts';
import { injectTraceContext } from '@agentwire/telemetry';
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type Context, context } from '@opentelemetry/api';
import { BusError } from './bus-error.ts';
import { BLOBS_HEADER, type BlobOffload, offloadBlobs } from './offload-blobs.ts';
import { refusalOf } from './publish-refusal.ts';

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
  /** The bound on the body and where larger string fields go (docs/decisions/0162). */
  readonly offload?: BlobOffload;
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
 * `publish_refused` when the broker answered with an error or the command is over the
 * server's `max_payload` (nothing stored), `publish_failed` (retryable) otherwise.
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
  const { json, offloaded } =
    options.offload === undefined
      ? { json: JSON.stringify(command), offloaded: 0 }
      : await offloadBlobs(JSON.stringify(command), options.offload);
  if (offloaded > 0) h.set(BLOBS_HEADER, String(offloaded));
  try {
    const ack = await js.publish(subject, json, { headers: h });
    return { kind: ack.duplicate ? 'duplicate' : 'ok', streamSequence: ack.seq };
  } catch (error) {
    const refusal = refusalOf(error, json);
    if (refusal !== undefined) {
      throw new BusError(
        `command ${command.commandId} (${command.kind}) on ${subject} ${refusal}`,
        {
          code: 'publish_refused',
          cause: error,
        },
      );
    }
    throw new BusError(`publishing command ${command.commandId} on ${subject} failed`, {
      code: 'publish_failed',
      retryable: true,
      cause: error,
    });
  }
}
