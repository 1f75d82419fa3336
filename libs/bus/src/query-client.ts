import {
  ArchiveReply,
  type ArchiveRequest,
  DeleteReply,
  ExportReply,
  HistoryReply,
  type HistoryRequest,
  ListSessionsReply,
  type ListSessionsRequest,
  type Names,
  QueryErrorReply,
  type QueryOp,
} from '@agentwire/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import type { BusConnection } from './connect-bus.ts';
import { type ReplySchema, requestReply } from './request-reply.ts';
import type { RequestOptions, RuntimeFailure, RuntimeResult } from './runtime-client.ts';

/** Options of {@link QueryClient}. */
export interface QueryClientOptions {
  /** Default reply timeout, ms (15 s). */
  readonly timeoutMs?: number;
}

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

  /** The session as a transcript file (every branch), for an import elsewhere (0241). */
  exportSession(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<ExportReply>> {
    return this.#request('export', { sessionId }, ExportReply, options);
  }

  #request<T>(
    op: QueryOp,
    body: unknown,
    schema: ReplySchema<T>,
    options: RequestOptions | undefined,
  ): Promise<RuntimeResult<T>> {
    return requestReply(this.#nc, this.#names.query(op), body, {
      schema,
      errorSchema: QueryErrorReply as ReplySchema<RuntimeFailure>,
      timeoutMs: options?.timeoutMs ?? this.#timeoutMs,
      service: 'query service',
    });
  }
}
