import type { RequestOptions, RuntimeResult } from '@agentwire/bus';
import type {
  ArchiveReply,
  ArchiveRequest,
  DeleteReply,
  ExportReply,
  HistoryReply,
  HistoryRequest,
  ListSessionsReply,
  ListSessionsRequest,
} from '@agentwire/contracts';

/**
 * What the gateway needs from the read side (DESIGN.md "The read side"): `QueryClient` of
 * `@agentwire/bus` implements it over `<prefix>.query.*`, so the gateway stays free of
 * Postgres.
 */
export interface QueryBackend {
  listSessions(
    request: ListSessionsRequest,
    options?: RequestOptions,
  ): Promise<RuntimeResult<ListSessionsReply>>;
  history(request: HistoryRequest, options?: RequestOptions): Promise<RuntimeResult<HistoryReply>>;
  archive(request: ArchiveRequest, options?: RequestOptions): Promise<RuntimeResult<ArchiveReply>>;
  delete(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<DeleteReply>>;
  /** The session as a transcript file, every branch (0241); `not_caught_up` is retryable. */
  exportSession(sessionId: string, options?: RequestOptions): Promise<RuntimeResult<ExportReply>>;
}
