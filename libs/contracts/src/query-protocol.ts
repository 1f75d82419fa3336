/**
 * The read side's protocol (DESIGN.md "The read side"): the query service answers
 * `<prefix>.query.<op>` in one queue group, reading Postgres. Request and reply bodies,
 * and error codes, shared by the query service, `QueryClient` of `@agentwire/bus` and the
 * gateway, so that no frontend imports a service.
 */
import { z } from 'zod';
import { Message } from './messages/message.ts';
import { Part } from './parts/part.ts';
import { EpochMs, TitleSource } from './payloads/common.ts';
import { SessionStatus } from './projection.ts';
import { SessionId } from './session-event.ts';

/** Queue group of every query service instance: they share the requests. */
export const QUERY_QUEUE_GROUP = 'query';

/** The operations answered on `<prefix>.query.<op>`. */
const QUERY_OPS = ['list_sessions', 'history', 'archive', 'delete', 'export'] as const;
/** One query operation. */
export type QueryOp = (typeof QUERY_OPS)[number];

/** True for a known query operation name. */
export function isQueryOp(op: string): op is QueryOp {
  return (QUERY_OPS as readonly string[]).includes(op);
}

/** Largest page of sessions or messages one request may ask for. */
const MAX_QUERY_LIMIT = 500;

/** A session id in a query: one subject token (no `.`, `*` or `>`), at most 200 characters. */
export const QuerySessionId = SessionId.min(1, 'must not be empty').max(200);

/** A page size: a whole number from 1 to {@link MAX_QUERY_LIMIT}. */
export const QueryLimit = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(MAX_QUERY_LIMIT, `must be at most ${MAX_QUERY_LIMIT}`);

/**
 * An opaque page cursor, exactly as a reply gave it (base64url). A cursor names its
 * session and direction; the service refuses one it did not issue as `bad_cursor`.
 */
export const QueryCursor = z
  .string()
  .min(1, 'must not be empty')
  .max(1024, 'is longer than any cursor this service issues')
  .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this service issued');

/**
 * `<prefix>.query.list_sessions`: ensured sessions, most recently updated first
 * (R16.4). `archived` defaults to false: archived sessions are listed only when asked for.
 * An unknown filter is refused (`invalid_request` naming it).
 */
export const ListSessionsRequest = z.strictObject({
  /** Sessions whose working directory (`cwd`) is exactly this. */
  directory: z.string().min(1).max(4096).optional(),
  /** Children of this session; `null`: top-level sessions only. */
  parentId: QuerySessionId.nullable().optional(),
  taskType: z.string().min(1).max(200).optional(),
  archived: z.boolean().default(false),
  limit: QueryLimit.default(50),
  cursor: QueryCursor.optional(),
});
/** `list_sessions` request (as sent: defaults may be left out). */
export type ListSessionsRequest = z.input<typeof ListSessionsRequest>;

/** One session of a list: its row and, once the projection has one, its status. */
export const SessionSummary = z.object({
  id: SessionId,
  parentId: SessionId.nullable(),
  taskType: z.string().nullable(),
  title: z.string().nullable(),
  titleSource: TitleSource.nullable(),
  /** The working directory (`cwd`). */
  directory: z.string().nullable(),
  root: z.string().nullable(),
  archived: z.boolean(),
  createdAt: EpochMs,
  updatedAt: EpochMs,
  /** The projection's status (R16.3); null before the projection applied an event. */
  status: SessionStatus.nullable(),
  /** Epoch ms of the last event the projection reduced; null without a projection. */
  lastActivityAt: EpochMs.nullable(),
  /** The highest sequence number the store knows for the session. */
  lastSequence: z.number().int().min(0),
});
/** One session of a list. */
export type SessionSummary = z.infer<typeof SessionSummary>;

/** Reply of `list_sessions`: one page and the cursor of the next (null: no more). */
export const ListSessionsReply = z.object({
  ok: z.literal(true),
  sessions: z.array(SessionSummary),
  nextCursor: QueryCursor.nullable(),
});
/** Reply of `list_sessions`. */
export type ListSessionsReply = z.infer<typeof ListSessionsReply>;

/**
 * `<prefix>.query.history`: one page of a session's messages with their parts, in
 * creation order. Without a cursor the page starts at `from`: the newest messages (`end`,
 * the default) or the oldest (`start`). A cursor of a reply pages on from there (its
 * `older` or `newer`); `cursor` and `from` exclude each other.
 *
 * `asOfSeq` asks for a page exact for sequence N: the service answers `not_caught_up`
 * (retryable) while its store is behind N or still has writes of the session to commit
 * (docs/decisions/0181).
 */
export const HistoryRequest = z
  .strictObject({
    sessionId: QuerySessionId,
    limit: QueryLimit.default(100),
    cursor: QueryCursor.optional(),
    from: z.enum(['start', 'end']).optional(),
    asOfSeq: z.number().int('must be a whole number').min(0, 'must not be negative').optional(),
  })
  .refine((r) => r.cursor === undefined || r.from === undefined, {
    message: 'cursor and from exclude each other: a cursor already says where to start',
    path: ['from'],
  });
/** `history` request (as sent). */
export type HistoryRequest = z.input<typeof HistoryRequest>;

/** A message with its parts (R7, R16.4), parts in id order. */
export const HistoryMessage = z.object({ message: Message, parts: z.array(Part) });
/** A message with its parts. */
export type HistoryMessage = z.infer<typeof HistoryMessage>;

/**
 * Reply of `history`: the page (oldest first), the cursors to page on (null when nothing
 * lies that way), and `asOfSeq`: the request's `asOfSeq` when it gave one (the page holds
 * every message of the events up to it), else the store's sequence mark read in the same
 * snapshot. A frontend follows the session from `asOfSeq + 1` (R15.1).
 */
export const HistoryReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  messages: z.array(HistoryMessage),
  older: QueryCursor.nullable(),
  newer: QueryCursor.nullable(),
  asOfSeq: z.number().int().min(0),
});
/** Reply of `history`. */
export type HistoryReply = z.infer<typeof HistoryReply>;

/** `<prefix>.query.archive`: archive (or, with `archived: false`, restore) a session. */
export const ArchiveRequest = z.strictObject({
  sessionId: QuerySessionId,
  archived: z.boolean().default(true),
});
/** `archive` request (as sent). */
export type ArchiveRequest = z.input<typeof ArchiveRequest>;

/** Reply of `archive`: the flag as stored. */
export const ArchiveReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  archived: z.boolean(),
});
/** Reply of `archive`. */
export type ArchiveReply = z.infer<typeof ArchiveReply>;

/**
 * `<prefix>.query.delete`: delete a session (R3.1, R16.4): its rows and its events. A
 * session whose lease is held (resident in a runtime) is refused as `session_active`.
 */
export const DeleteRequest = z.strictObject({ sessionId: QuerySessionId });
/** `delete` request. */
export type DeleteRequest = z.infer<typeof DeleteRequest>;

/** Reply of `delete`: what was removed. */
export const DeleteReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  messages: z.number().int().min(0),
  events: z.number().int().min(0),
});
/** Reply of `delete`. */
export type DeleteReply = z.infer<typeof DeleteReply>;

/**
 * `<prefix>.query.export`: a whole session as a transcript file (docs/decisions/0241): the
 * JSON Lines of `formatTranscript`, every branch, in the transcript's order; import reads
 * it back as a new session (`aw.rt.open` with `transcript`).
 */
export const ExportRequest = z.strictObject({ sessionId: QuerySessionId });
/** `export` request. */
export type ExportRequest = z.infer<typeof ExportRequest>;

/** Reply of `export`: the file's text and how many messages it holds. */
export const ExportReply = z.object({
  ok: z.literal(true),
  sessionId: SessionId,
  messages: z.number().int().min(0),
  transcript: z.string(),
});
/** Reply of `export`. */
export type ExportReply = z.infer<typeof ExportReply>;

/**
 * Reply of `export` as sent: the file inline when one reply carries it, else a reference to
 * it in the blob store (docs/decisions/0162, 0241), which `QueryClient` reads back.
 */
export const ExportWireReply = z.union([
  ExportReply,
  ExportReply.omit({ transcript: true }).extend({ transcriptRef: z.string() }),
]);
/** Reply of `export` as sent. */
export type ExportWireReply = z.infer<typeof ExportWireReply>;

/**
 * Every code the query service answers `{ ok: false, error }` with:
 * - `invalid_request`: the body is not JSON or failed its schema (unknown filter, negative
 *   limit, malformed id, ...); `detail.issues` lists each `{ path, message }`;
 * - `unknown_op`: a subject `<prefix>.query.<op>` with no such operation;
 * - `bad_cursor`: a cursor the service did not issue, of another session or direction, or
 *   whose message is gone;
 * - `not_found`: no such session;
 * - `session_active`: `delete` of a session a runtime holds (close it first);
 * - `transcript_too_large`: an `export` over the largest file the blob store takes for it
 *   (`detail.limit`);
 * - `not_caught_up`: `asOfSeq` beyond what the store has applied yet (retry);
 * - `unavailable`: Postgres or the stream could not be read or written (retry);
 * - `internal`: anything unclassified.
 */
export const QueryErrorCode = z.enum([
  'invalid_request',
  'unknown_op',
  'bad_cursor',
  'not_found',
  'session_active',
  'transcript_too_large',
  'not_caught_up',
  'unavailable',
  'internal',
]);
/** A query error code. */
export type QueryErrorCode = z.infer<typeof QueryErrorCode>;

/** A typed error reply of the query service. */
export const QueryErrorReply = z.object({
  ok: z.literal(false),
  error: z.object({
    code: QueryErrorCode,
    message: z.string(),
    detail: z.record(z.string(), z.unknown()).optional(),
  }),
});
/** A typed error reply of the query service. */
export type QueryErrorReply = z.infer<typeof QueryErrorReply>;
