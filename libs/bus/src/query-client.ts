import {
  ArchiveReply,
  type ArchiveRequest,
  DeleteReply,
  type ExportReply,
  ExportWireReply,
  HistoryReply,
  type HistoryRequest,
  ListSessionsReply,
  type ListSessionsRequest,
  type Names,
  QueryErrorReply,
  type QueryOp,
} from '@agentwire/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import { BlobStore } from './blob-store.ts';
import { BusError } from './bus-error.ts';
import type { BusConnection } from './connect-bus.ts';
import { failure, type ReplySchema, requestReply } from './request-reply.ts';
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
  #blobs: BlobStore | undefined;

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

  /**
   * The session as a transcript file (every branch), for an import elsewhere (0241): inline,
   * or read back from the blob store when one reply could not carry it.
   */
  async exportSession(
    sessionId: string,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ExportReply>> {
    const reply = await this.#request('export', { sessionId }, ExportWireReply, options);
    if (!reply.ok || !('transcriptRef' in reply)) return reply;
    const { transcriptRef, ...rest } = reply;
    try {
      this.#blobs ??= BlobStore.reader(this.#nc, this.#names);
      return { ...rest, transcript: await this.#blobs.get(transcriptRef) };
    } catch (error) {
      if (!(error instanceof BusError)) throw error;
      return failure('unavailable', `the exported file cannot be read back: ${error.message}`);
    }
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
