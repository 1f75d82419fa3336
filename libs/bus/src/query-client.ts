import {
  ArchiveReply,
  type ArchiveRequest,
  DeleteReply,
  HistoryReply,
  type HistoryRequest,
  ListSessionsReply,
  type ListSessionsRequest,
  type Names,
  QueryErrorReply,
  type QueryOp,
} from '@agentwire/contracts';
import { errors, type NatsConnection } from '@nats-io/transport-node';
import { BusError } from './bus-error.ts';
import type { BusConnection } from './connect-bus.ts';
import type { RequestOptions, RuntimeFailure, RuntimeResult } from './runtime-client.ts';

/** Options of {@link QueryClient}. */
export interface QueryClientOptions {
  /** Default reply timeout, ms (15 s). */
  readonly timeoutMs?: number;
}

interface ReplySchema<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } };
}

const encoder = new TextEncoder();

/**
 * A typed client of the read side (DESIGN.md "The read side": `<prefix>.query.<op>`), one
 * method per operation. Replies are parsed with the contracts' schemas; the service's
 * error replies (`bad_cursor`, `not_found`, ...), timeouts (`timeout`) and a missing
 * service (`unavailable`) come back as {@link RuntimeFailure} values. A closed connection
 * throws {@link BusError} (`not_connected`).
 */
export class QueryClient {
  readonly #nc: NatsConnection;
  readonly #names: Names;
  readonly #timeoutMs: number;

  constructor(bus: BusConnection, names: Names, options: QueryClientOptions = {}) {
    this.#nc = bus.nc;
    this.#names = names;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** One page of sessions, most recently updated first, with their status. */
  listSessions(
    request: ListSessionsRequest = {},
    options?: RequestOptions,
  ): Promise<RuntimeResult<ListSessionsReply>> {
    return this.#request('list_sessions', request, ListSessionsReply, options);
  }

  /** One page of a session's messages with their parts, and the sequence it is as of. */
  history(request: HistoryRequest, options?: RequestOptions): Promise<RuntimeResult<HistoryReply>> {
    return this.#request('history', request, HistoryReply, options);
  }

  /** Archives a session (or restores it with `archived: false`). */
  archive(request: ArchiveRequest, options?: RequestOptions): Promise<RuntimeResult<ArchiveReply>> {
    return this.#request('archive', request, ArchiveReply, options);
  }

  /** Deletes a session's rows and events; `session_active` while a runtime holds it. */
  delete(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<DeleteReply>> {
    return this.#request('delete', { sessionId }, DeleteReply, options);
  }

  async #request<T>(
    op: QueryOp,
    body: unknown,
    schema: ReplySchema<T>,
    options: RequestOptions | undefined,
  ): Promise<RuntimeResult<T>> {
    if (this.#nc.isClosed()) {
      throw new BusError('the NATS connection is closed', {
        code: 'not_connected',
        retryable: false,
      });
    }
    const subject = this.#names.query(op);
    const timeout = options?.timeoutMs ?? this.#timeoutMs;
    let raw: unknown;
    try {
      const reply = await this.#nc.request(subject, encoder.encode(JSON.stringify(body)), {
        timeout,
      });
      raw = reply.json<unknown>();
    } catch (cause) {
      return transportFailure(subject, timeout, cause);
    }
    const error = QueryErrorReply.safeParse(raw);
    if (error.success) return error.data as RuntimeFailure;
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return failure('invalid_reply', `unexpected reply on ${subject}: ${issues.join('; ')}`);
  }
}

function failure(code: string, message: string): RuntimeFailure {
  return { ok: false, error: { code, message } };
}

function transportFailure(subject: string, timeoutMs: number, cause: unknown): RuntimeFailure {
  if (cause instanceof errors.TimeoutError) {
    return failure('timeout', `no reply on ${subject} within ${timeoutMs} ms`);
  }
  if (
    (cause instanceof errors.RequestError && cause.isNoResponders()) ||
    cause instanceof errors.NoRespondersError
  ) {
    return failure('unavailable', `no query service answers ${subject}`);
  }
  if (cause instanceof errors.ClosedConnectionError) {
    throw new BusError('the NATS connection is closed', {
      code: 'not_connected',
      retryable: false,
      cause,
    });
  }
  if (cause instanceof SyntaxError) {
    return failure('invalid_reply', `reply on ${subject} is not JSON: ${cause.message}`);
  }
  throw cause;
}
