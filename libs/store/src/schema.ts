import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * A JSONB column. Written as a JSON string (`JSON.stringify`, so that arrays and strings
 * are stored as JSON rather than as Postgres arrays or text), read back as parsed JSON.
 */
type Json = ColumnType<unknown, string, string>;

/** A JSONB column that may be null. */
type NullableJson = ColumnType<unknown | null, string | null, string | null>;

/**
 * A `bigint` column. `pg` returns int8 as a string unless told otherwise; {@link createDatabase}
 * installs a parser so these read back as numbers (sequence numbers and versions stay far
 * below 2^53).
 */
type BigIntColumn = ColumnType<number, number, number>;

/** A nullable `bigint` column. */
type NullableBigInt = ColumnType<number | null, number | null, number | null>;

/** A `timestamptz` column: read as `Date`, written as `Date` or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** A nullable `timestamptz` column. */
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

/**
 * `sessions`: one row per persisted session (R13.2: born lazily, on the first write).
 *
 * A row whose `created_at` is null is a stub: a durable event (R6) advanced
 * `last_sequence` before the `ensure_session` command arrived; `ensure_session` fills it in.
 */
interface SessionsTable {
  id: string;
  parent_id: string | null;
  task_type: string | null;
  title: string | null;
  /** R9.1: `default` | `first_input` | `generated` | `custom`. */
  title_source: string | null;
  first_input: string | null;
  /** R9.9: once the first question is edited (or rewound away) no generated title applies. */
  first_input_edited: Generated<boolean>;
  cwd: string | null;
  root: string | null;
  archived: Generated<boolean>;
  /** Extra session metadata, additive. */
  data: ColumnType<unknown, string | undefined, string>;
  created_at: NullableTimestamp;
  updated_at: NullableTimestamp;
  /** DESIGN invariant: durable high-water mark of the session's event sequence numbers. */
  last_sequence: ColumnType<number, number | undefined, number>;
}

/** `messages` (R7, R16.4): `data` holds the full message; `version` orders rewrites. */
interface MessagesTable {
  id: string;
  session_id: string;
  /** `user` | `assistant`. */
  role: string;
  data: Json;
  /** A write applies only when its version is greater than the stored one. */
  version: BigIntColumn;
  created_at: Timestamp;
}

/** `parts` (R7.2, R7.5): `status` and `status_rank` are set for tool parts only. */
interface PartsTable {
  id: string;
  message_id: string;
  session_id: string;
  type: string;
  /** Tool parts: `pending` | `running` | `completed` | `error`. */
  status: string | null;
  /** pending 0, running 1, completed/error 2; non-tool parts 0. Forward-only (R7.5). */
  status_rank: number;
  data: Json;
  version: BigIntColumn;
}

/**
 * `session_entries` (R6, R16.4). Unkeyed entries use the producing event's id as `id`;
 * keyed entries (the auto-resolution entry, keyed by interaction id) use a deterministic id
 * derived from session, type and key, and keep the newest event's data.
 */
interface SessionEntriesTable {
  id: string;
  session_id: string;
  type: string;
  key: string | null;
  event_id: string;
  sequence: BigIntColumn;
  data: Json;
  created_at: Timestamp;
}

/**
 * `session_inputs`: the input ledger of R14.1. Terminal statuses (`promoted`,
 * `cancelled`, `discarded`, `failed`) never change (R14.2).
 *
 * Every field set by a later event may arrive before the admission itself (events and
 * commands travel on different streams), so admission fields are nullable until
 * `turn_steer_queued` lands; see docs/decisions/0031.
 */
interface SessionInputsTable {
  id: string;
  session_id: string;
  kind: string | null;
  /**
   * Delivery facts: the sequence number of each delivery-setting event (admission, delivery
   * change) to its mode; pruned to the newest one at or before the close once the row is
   * terminal (`aw_ledger_deliveries`, docs/decisions/0034).
   */
  deliveries: ColumnType<Record<string, string>, string | undefined, string>;
  /** `startNow` | `guide` | `queue`: the newest entry of `deliveries` (`ledger-sql.ts`). */
  delivery: string | null;
  /** The sequence of the newest entry of `deliveries`. */
  delivery_seq: NullableBigInt;
  payload: NullableJson;
  /** Sequence of the event that set `payload`: the admission, or a later edit (0222). */
  payload_seq: NullableBigInt;
  admitted_seq: NullableBigInt;
  /** Ordering position in the queue; the admission sequence unless reordered. */
  position: NullableBigInt;
  promoted_seq: NullableBigInt;
  message_id: string | null;
  /** `admitted` | `promoted` | `cancelled` | `discarded` | `failed`. */
  status: string;
  status_reason: string | null;
  /** Sequence of the event that closed the row, when an event did. */
  status_seq: NullableBigInt;
  admitted_at: NullableTimestamp;
  settled_at: NullableTimestamp;
}

/** `session_projections` (R10, DESIGN flow 3): compare-and-set on `last_sequence`. */
interface SessionProjectionsTable {
  session_id: string;
  projection: Json;
  last_sequence: BigIntColumn;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** `processed_messages`: one row per applied event or command id (redelivery is a no-op). */
interface ProcessedMessagesTable {
  scope: string;
  id: string;
  /** The JSON outcome of applying the message, returned again on redelivery. */
  outcome: NullableJson;
  processed_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The store's database, as Kysely sees it. */
export interface Database {
  sessions: SessionsTable;
  messages: MessagesTable;
  parts: PartsTable;
  session_entries: SessionEntriesTable;
  session_inputs: SessionInputsTable;
  session_projections: SessionProjectionsTable;
  processed_messages: ProcessedMessagesTable;
}

/** A `sessions` row as read. */
export type SessionRow = Selectable<SessionsTable>;
/** A `messages` row as read. */
export type MessageRow = Selectable<MessagesTable>;
/** A `parts` row as read. */
export type PartRow = Selectable<PartsTable>;
/** A `session_entries` row as read. */
export type SessionEntryRow = Selectable<SessionEntriesTable>;
/** A `session_inputs` (ledger) row as read. */
export type SessionInputRow = Selectable<SessionInputsTable>;
