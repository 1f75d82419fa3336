/** Helpers shared by this package's integration tests (not exported from the package). */
import { randomBytes } from 'node:crypto';
import { createEvent, type Names, type SessionEvent } from '@agentwire/contracts';
import { withSequenceNumber } from '@agentwire/contracts/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { deleteProvisioned } from './delete-provisioned.ts';

export const traceId = (): string => randomBytes(16).toString('hex');

/** A numbered non-transient event (`interrupt`) on the session's `ev` subject. */
export function durableEvent(
  sessionId: string,
  sequenceNumber: number,
  id = `ev-${sessionId}-${sequenceNumber}`,
): SessionEvent {
  const event = createEvent({
    id,
    sessionId,
    turnId: null,
    type: 'interrupt',
    payload: { reason: `n${sequenceNumber}` },
    timestamp: 1_700_000_000_000 + sequenceNumber,
    traceId: traceId(),
  });
  return withSequenceNumber(event, sequenceNumber);
}

/** A numbered transient event (`model_streaming`) on the turn's `tx` subject. */
export function transientEvent(
  sessionId: string,
  turnId: string,
  sequenceNumber: number,
): SessionEvent {
  const event = createEvent({
    id: `tx-${sessionId}-${sequenceNumber}`,
    sessionId,
    turnId,
    type: 'model_streaming',
    payload: { delta: `d${sequenceNumber}`, done: false },
    timestamp: 1_700_000_000_000 + sequenceNumber,
    traceId: traceId(),
  });
  return withSequenceNumber(event, sequenceNumber);
}

/** Deletes every stream and bucket `provision` made for `n`. */
export async function deprovision(nc: NatsConnection, n: Names): Promise<void> {
  await deleteProvisioned(await jetstreamManager(nc), n);
}

/** Starts a test environment and a plain connection for test-side checks. */
export async function setup(): Promise<{ env: TestEnvironment; nc: NatsConnection }> {
  const env = await createTestEnvironment();
  const nc = await connect({ servers: env.natsUrl, noAsyncTraces: true });
  return { env, nc };
}
