import {
  type ArchiveReply,
  ArchiveRequest,
  type DeleteReply,
  DeleteRequest,
  EpochMs,
  ExportRequest,
  type ExportWireReply,
  formatTranscript,
  type HistoryMessage,
  HistoryMessage as HistoryMessageSchema,
  type HistoryReply,
  HistoryRequest,
  isQueryOp,
  type ListSessionsReply,
  ListSessionsRequest,
  type QueryErrorCode,
  type QueryErrorReply,
  type QueryOp,
  SessionStatus,
  type SessionSummary,
  TitleSource,
  TRANSCRIPT_FORMAT,
  TRANSCRIPT_INLINE_BYTES,
  TRANSCRIPT_MAX_BYTES,
} from '@agentwire/contracts';
import {
  type Database,
  deleteSessionRows,
  listSessionPage,
  readHistoryPage,
  readSessionMarks,
  readTranscript,
  type SessionPageRow,
  type StoredMessage,
  StoreError,
  setSessionArchived,
} from '@agentwire/store';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { historyCursor, listCursor, readHistoryCursor, readListCursor } from './query-cursor.ts';

/** What answering a query needs besides Postgres: the lease and events of a session. */
export interface QueryDeps {
  readonly db: Kysely<Database>;
  /** True while a runtime holds the session's lease (it is resident somewhere). */
  readonly sessionHeld: (sessionId: string) => Promise<boolean>;
  /** Purges the session's events from the events stream; answers how many went. */
  readonly purgeEvents: (sessionId: string) => Promise<number>;
  /** Persistence commands of the session still in the commands stream (not yet committed). */
  readonly pendingCommands: (sessionId: string) => Promise<number>;
  /** The number of the session's last non-transient event in the stream; null without one. */
  readonly lastEventSequence: (sessionId: string) => Promise<number | null>;
  /** A request body larger than this is refused unread (`invalid_request`). */
  readonly maxRequestBytes: number;
  /** Stores a text in the blob store (docs/decisions/0162); answers its reference. */
  readonly storeBlob: (text: string) => Promise<string>;
}

/** Any reply of the query service: a success body or a typed error. */
export type QueryReply =
  | ListSessionsReply
  | HistoryReply
  | ArchiveReply
  | DeleteReply
  | ExportWireReply
  | QueryErrorReply;

const decoder = new TextDecoder();

function refuse(
  code: QueryErrorCode,
  message: string,
  detail?: Record<string, unknown>,
): QueryErrorReply {
  return { ok: false, error: { code, message, ...(detail === undefined ? {} : { detail }) } };
}

function invalid(error: z.ZodError): QueryErrorReply {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  return refuse(
    'invalid_request',
    `invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    { issues },
  );
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> | QueryErrorReply {
  const parsed = schema.safeParse(body);
  return parsed.success ? (parsed.data as z.infer<S>) : invalid(parsed.error);
}

function isRefusal(value: unknown): value is QueryErrorReply {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false;
}

/**
 * Answers one read-side request (DESIGN.md "The read side") from the raw subject token and
 * body: parses it with the contracts' schema, reads or writes the store, and returns a
 * typed reply. It never throws: bad input is `invalid_request` / `bad_cursor` naming what was
 * wrong, a store failure `unavailable`.
 */
export async function answerQuery(
  op: string,
  data: Uint8Array,
  deps: QueryDeps,
): Promise<QueryReply> {
  if (!isQueryOp(op)) return refuse('unknown_op', `no query operation ${JSON.stringify(op)}`);
  if (data.byteLength > deps.maxRequestBytes) {
    return refuse('invalid_request', `request body is over ${deps.maxRequestBytes} bytes`, {
      limit: deps.maxRequestBytes,
    });
  }
  let body: unknown;
  try {
    const text = decoder.decode(data);
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return refuse('invalid_request', 'request body is not JSON');
  }
  try {
    return await HANDLERS[op](body, deps);
  } catch (error) {
    if (error instanceof StoreError) {
      return refuse('unavailable', error.message, { retryable: error.retryable });
    }
    return refuse('internal', error instanceof Error ? error.message : String(error));
  }
}

type Handler = (body: unknown, deps: QueryDeps) => Promise<QueryReply>;

const HANDLERS: Readonly<Record<QueryOp, Handler>> = {
  list_sessions: listSessions,
  history,
  archive,
  delete: deleteSession,
  export: exportSession,
};

/** What one export reply may carry: below NATS's default 1 MiB payload, with room. */
/** The largest file one reply carries inline; a larger one goes to the blob store. */
const EXPORT_INLINE_BYTES = TRANSCRIPT_INLINE_BYTES;
/** The largest file an export makes (10,000 messages with large tool outputs fit). */
const EXPORT_MAX_BYTES = TRANSCRIPT_MAX_BYTES;

/**
 * `export` (docs/decisions/0241): every message of the session with its parts as a
 * transcript file, once the worker committed every write of the session (retry otherwise).
 */
async function exportSession(body: unknown, deps: QueryDeps): Promise<QueryReply> {
  const request = parse(ExportRequest, body);
  if (isRefusal(request)) return request;
  const { sessionId } = request;
  const pending = await deps.pendingCommands(sessionId);
  if (pending > 0) {
    return refuse(
      'not_caught_up',
      `the store has not yet committed ${pending} write(s) of session ${sessionId}; retry`,
      { pendingCommands: pending, retryable: true },
    );
  }
  const stored = await readTranscript(deps.db, sessionId);
  if (!stored.found) return refuse('not_found', `no session ${sessionId}`, { sessionId });
  const entries: HistoryMessage[] = [];
  for (const m of stored.messages) {
    const entry = historyMessageOf(m);
    if (isRefusal(entry)) return entry;
    entries.push(entry);
  }
  const transcript = formatTranscript(
    {
      format: TRANSCRIPT_FORMAT,
      version: 1,
      sessionId,
      title: stored.title,
      exportedAt: Date.now(),
    },
    entries,
  );
  const bytes = Buffer.byteLength(transcript, 'utf8');
  if (bytes > EXPORT_MAX_BYTES) {
    return refuse(
      'transcript_too_large',
      `session ${sessionId} exports to ${bytes} bytes, over the ${EXPORT_MAX_BYTES} an export makes`,
      { limit: EXPORT_MAX_BYTES, bytes },
    );
  }
  const reply: ExportWireReply =
    bytes <= EXPORT_INLINE_BYTES
      ? { ok: true, sessionId, messages: entries.length, transcript }
      : {
          ok: true,
          sessionId,
          messages: entries.length,
          transcriptRef: await deps.storeBlob(transcript),
        };
  return reply;
}

async function listSessions(body: unknown, deps: QueryDeps): Promise<QueryReply> {
  const request = parse(ListSessionsRequest, body);
  if (isRefusal(request)) return request;
  const { limit, cursor, ...filters } = request;
  const canonical = JSON.stringify([
    filters.directory ?? null,
    filters.parentId === undefined ? '*' : filters.parentId,
    filters.taskType ?? null,
    filters.archived,
  ]);
  let after: { updatedUs: string; id: string } | undefined;
  if (cursor !== undefined) {
    const read = readListCursor(cursor, canonical);
    if (!read.ok) return refuse('bad_cursor', read.message, { field: 'cursor' });
    after = { updatedUs: read.updatedUs, id: read.id };
  }
  const rows = await listSessionPage(deps.db, { ...filters, limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    ok: true,
    sessions: page.map(summaryOf),
    nextCursor:
      rows.length > limit && last !== undefined
        ? listCursor(canonical, last.key.updatedUs, last.key.id)
        : null,
  };
}

function summaryOf(row: SessionPageRow): SessionSummary {
  const s = row.session;
  const created = s.created_at?.getTime() ?? 0;
  const status = SessionStatus.safeParse(row.status);
  const activity = EpochMs.safeParse(row.activity);
  const titleSource = TitleSource.safeParse(s.title_source);
  return {
    id: s.id,
    parentId: s.parent_id,
    taskType: s.task_type,
    title: s.title,
    titleSource: titleSource.success ? titleSource.data : null,
    directory: s.cwd,
    root: s.root,
    archived: s.archived,
    createdAt: created,
    updatedAt: s.updated_at?.getTime() ?? created,
    status: status.success ? status.data : null,
    lastActivityAt: activity.success ? activity.data : null,
    lastSequence: Math.max(s.last_sequence, row.projectionSequence ?? 0),
  };
}

async function history(body: unknown, deps: QueryDeps): Promise<QueryReply> {
  const request = parse(HistoryRequest, body);
  if (isRefusal(request)) return request;
  const { sessionId, limit } = request;
  let start: Parameters<typeof readHistoryPage>[2] = { from: request.from ?? 'end' };
  if (request.cursor !== undefined) {
    const read = readHistoryCursor(request.cursor, sessionId);
    if (!read.ok) return refuse('bad_cursor', read.message, { field: 'cursor' });
    start = { pivot: read.messageId, direction: read.direction, chain: read.chain };
  }
  // Asked "as of N": every command the runtime sent before event N was in the commands
  // stream before this request; none pending now means each is committed, so the page read
  // after this check holds every message of the events up to N (docs/decisions/0181).
  const pending = request.asOfSeq === undefined ? 0 : await deps.pendingCommands(sessionId);
  const page = await readHistoryPage(deps.db, sessionId, start, limit);
  if (!page.found) {
    return page.reason === 'no_session'
      ? refuse('not_found', `no session ${sessionId}`, { sessionId })
      : refuse('bad_cursor', "the cursor's message no longer exists in this session", {
          field: 'cursor',
        });
  }
  if (request.asOfSeq !== undefined && page.lastSequence < request.asOfSeq) {
    return refuse(
      'not_caught_up',
      `the store has session ${sessionId} up to sequence ${page.lastSequence}, not yet ${request.asOfSeq}; retry`,
      { storedSequence: page.lastSequence, asOfSeq: request.asOfSeq, retryable: true },
    );
  }
  if (pending > 0) {
    return refuse(
      'not_caught_up',
      `the store has not yet committed ${pending} write(s) of session ${sessionId}; retry`,
      { pendingCommands: pending, asOfSeq: request.asOfSeq, retryable: true },
    );
  }
  const messages: HistoryMessage[] = [];
  for (const stored of page.messages) {
    const message = historyMessageOf(stored);
    if (isRefusal(message)) return message;
    messages.push(message);
  }
  const first = page.messages[0]?.message.id;
  const last = page.messages.at(-1)?.message.id;
  // Reading older (a cursor's `older`, or from the end) `more` says older ones exist;
  // reading newer, newer ones. The other side is non-empty exactly when a cursor started
  // the page there.
  const readingOlder = 'pivot' in start ? start.direction === 'older' : start.from === 'end';
  const olderExist = readingOlder ? page.more : 'pivot' in start;
  const newerExist = readingOlder ? 'pivot' in start : page.more;
  return {
    ok: true,
    sessionId,
    messages,
    older:
      olderExist && first !== undefined
        ? historyCursor(sessionId, first, 'older', page.chain)
        : null,
    newer:
      newerExist && last !== undefined ? historyCursor(sessionId, last, 'newer', page.chain) : null,
    // Asked as of N, the page is exact for N (it may already hold messages of later
    // events, which a follower merges by id); otherwise it is the store's mark.
    asOfSeq: request.asOfSeq ?? page.lastSequence,
  };
}

function historyMessageOf(stored: StoredMessage): HistoryMessage | QueryErrorReply {
  const parsed = HistoryMessageSchema.safeParse({
    message: stored.message.data,
    parts: stored.parts.map((p) => p.data),
  });
  if (parsed.success) return parsed.data;
  return refuse('internal', `stored message ${stored.message.id} does not match its schema`, {
    messageId: stored.message.id,
  });
}

async function archive(body: unknown, deps: QueryDeps): Promise<QueryReply> {
  const request = parse(ArchiveRequest, body);
  if (isRefusal(request)) return request;
  const found = await setSessionArchived(deps.db, request.sessionId, request.archived);
  if (!found) {
    return refuse('not_found', `no session ${request.sessionId}`, { sessionId: request.sessionId });
  }
  return { ok: true, sessionId: request.sessionId, archived: request.archived };
}

async function deleteSession(body: unknown, deps: QueryDeps): Promise<QueryReply> {
  const request = parse(DeleteRequest, body);
  if (isRefusal(request)) return request;
  const { sessionId } = request;
  if (await deps.sessionHeld(sessionId)) {
    return refuse(
      'session_active',
      `session ${sessionId} is resident in a runtime; close it (or let it go idle) before deleting it`,
      { sessionId },
    );
  }
  // Settled first: a session just closed still has its last events (`session_ended`) and
  // writes on their way to the worker and the projection, which would bring rows back.
  const [tip, pending, marks] = await Promise.all([
    deps.lastEventSequence(sessionId),
    deps.pendingCommands(sessionId),
    readSessionMarks(deps.db, sessionId),
  ]);
  const behind = tip !== null && ((marks.stored ?? 0) < tip || (marks.projected ?? 0) < tip);
  if (pending > 0 || behind) {
    return refuse(
      'not_caught_up',
      `the store is still writing session ${sessionId} (its last event ${tip ?? 0}, stored ${marks.stored ?? 0}, projected ${marks.projected ?? 0}, ${pending} write(s) pending); retry the delete`,
      { sessionId, lastEvent: tip, ...marks, pendingCommands: pending, retryable: true },
    );
  }
  const rows = await deleteSessionRows(deps.db, sessionId);
  let events: number;
  try {
    events = await deps.purgeEvents(sessionId);
  } catch (error) {
    return refuse(
      'unavailable',
      `deleted the rows of session ${sessionId} but could not purge its events (retry the delete): ${error instanceof Error ? error.message : String(error)}`,
      { sessionId, retryable: true },
    );
  }
  if (!rows.session && rows.messages === 0 && events === 0) {
    return refuse('not_found', `no session ${sessionId}`, { sessionId });
  }
  return { ok: true, sessionId, messages: rows.messages, events };
}
