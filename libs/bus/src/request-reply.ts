import { errors, type NatsConnection } from '@nats-io/transport-node';
import { BusError } from './bus-error.ts';
import type { RuntimeFailure, RuntimeResult } from './runtime-client.ts';

/** The part of a zod schema the clients use (the bus takes no direct zod dependency). */
export interface ReplySchema<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } };
}

const encoder = new TextEncoder();
const notConnected = { code: 'not_connected', retryable: false } as const;

/** An expected failure as a value. */
export function failure(code: string, message: string): RuntimeFailure {
  return { ok: false, error: { code, message } };
}

/**
 * One JSON request/reply of the typed clients (`RuntimeClient`, `QueryClient`): the reply is
 * an error reply (`errorSchema`), the expected reply (`schema`), or `invalid_reply`; a
 * timeout, missing responders and non-JSON come back as failures naming `service`. A closed
 * connection throws {@link BusError} (`not_connected`).
 */
export async function requestReply<T>(
  nc: NatsConnection,
  subject: string,
  body: unknown,
  o: {
    readonly schema: ReplySchema<T>;
    readonly errorSchema: ReplySchema<RuntimeFailure>;
    readonly timeoutMs: number;
    readonly service: string;
  },
): Promise<RuntimeResult<T>> {
  if (nc.isClosed()) throw new BusError('the NATS connection is closed', notConnected);
  let raw: unknown;
  try {
    const reply = await nc.request(subject, encoder.encode(JSON.stringify(body)), {
      timeout: o.timeoutMs,
    });
    raw = reply.json<unknown>();
  } catch (cause) {
    return transportFailure(subject, o.timeoutMs, o.service, cause);
  }
  const error = o.errorSchema.safeParse(raw);
  if (error.success) return error.data;
  const parsed = o.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return failure('invalid_reply', `unexpected reply on ${subject}: ${issues.join('; ')}`);
}

function transportFailure(
  subject: string,
  timeoutMs: number,
  service: string,
  cause: unknown,
): RuntimeFailure {
  if (cause instanceof errors.TimeoutError) {
    return failure('timeout', `no reply on ${subject} within ${timeoutMs} ms`);
  }
  if (
    (cause instanceof errors.RequestError && cause.isNoResponders()) ||
    cause instanceof errors.NoRespondersError
  ) {
    return failure('unavailable', `no ${service} answers ${subject}`);
  }
  if (cause instanceof errors.ClosedConnectionError) {
    throw new BusError('the NATS connection is closed', { ...notConnected, cause });
  }
  if (cause instanceof SyntaxError) {
    return failure('invalid_reply', `reply on ${subject} is not JSON: ${cause.message}`);
  }
  throw cause;
}
