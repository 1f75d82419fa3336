import { sql } from 'kysely';

/**
 * The SQL of the ledger's order-tolerant upserts (docs/decisions/0034), shared by the
 * one-row repository and the set-based batch writes. A row keeps its delivery facts in
 * `deliveries` (sequence -> mode): all of them while `admitted`, only the one in force at
 * the close once terminal. `delivery`/`delivery_seq` are the newest kept fact, maintained
 * with comparisons; the facts are scanned only in the rare case of a close that precedes
 * the newest fact seen so far.
 */

/** A new delivery fact (`excluded.delivery` at `excluded.delivery_seq`) counts. */
const counts = sql`(session_inputs.status = 'admitted' or session_inputs.status_seq is null
  or excluded.delivery_seq <= session_inputs.status_seq)
  and (session_inputs.delivery_seq is null or excluded.delivery_seq > session_inputs.delivery_seq)`;

/** `ON CONFLICT` assignments merging the inserted row's delivery fact into the stored row. */
export const mergeDeliverySet = {
  delivery: sql<string>`case when ${counts} then excluded.delivery else session_inputs.delivery end`,
  delivery_seq: sql<number>`case when ${counts} then excluded.delivery_seq
    else session_inputs.delivery_seq end`,
  deliveries: sql<string>`case when session_inputs.status = 'admitted'
      then session_inputs.deliveries || excluded.deliveries
    when ${counts} then excluded.deliveries else session_inputs.deliveries end`,
};

/** The inserted admission is the first one seen (a re-emission for an edit is later). */
const firstAdmission = sql`(session_inputs.admitted_seq is null
  or excluded.admitted_seq < session_inputs.admitted_seq)`;

/**
 * The inserted payload is newer than the stored one, and was set while the row was still
 * admitted (R16.4: an edit changes only a waiting input).
 */
const newerPayload = sql`(session_inputs.payload_seq is null
    or excluded.payload_seq > session_inputs.payload_seq)
  and (session_inputs.status = 'admitted' or session_inputs.status_seq is null
    or excluded.payload_seq <= session_inputs.status_seq)`;

/**
 * `ON CONFLICT` assignments of an admission (`turn_steer_queued`) into a stored row, in any
 * arrival order (docs/decisions/0031, 0222): the first admission sets the admission
 * columns (a row a later write created has none yet); the newest payload wins (an edit
 * re-emits `turn_steer_queued` with the same id); the delivery fact merges like any other.
 */
export const admitConflictSet = {
  kind: sql<string>`case when ${firstAdmission} then excluded.kind else session_inputs.kind end`,
  admitted_seq: sql<number>`case when ${firstAdmission} then excluded.admitted_seq
    else session_inputs.admitted_seq end`,
  position: sql<number>`case when ${firstAdmission} then excluded.position
    else session_inputs.position end`,
  admitted_at: sql<Date>`case when ${firstAdmission} then excluded.admitted_at
    else session_inputs.admitted_at end`,
  payload: sql<string>`case when ${newerPayload} then excluded.payload
    else session_inputs.payload end`,
  payload_seq: sql<number>`case when ${newerPayload} then excluded.payload_seq
    else session_inputs.payload_seq end`,
  ...mergeDeliverySet,
};

/** The stored newest fact is in force at the close (`excluded.status_seq`). */
const stillInForce = sql`(excluded.status_seq is null or session_inputs.delivery_seq is null
  or session_inputs.delivery_seq <= excluded.status_seq)`;

/** The newest fact at or before the close, scanned from the facts (rare). */
const factAtClose = (column: 'key' | 'value') =>
  sql`(select ${sql.raw(column === 'key' ? 'e.key::bigint' : 'e.value')}
    from jsonb_each_text(session_inputs.deliveries) e
    where e.key::bigint <= excluded.status_seq order by e.key::bigint desc limit 1)`;

/** `ON CONFLICT` assignments closing an admitted row: keep only the fact in force. */
export const closeDeliverySet = {
  delivery: sql<string>`case when ${stillInForce} then session_inputs.delivery
    else ${factAtClose('value')} end`,
  delivery_seq: sql<number>`case when ${stillInForce} then session_inputs.delivery_seq
    else ${factAtClose('key')} end`,
  deliveries: sql<string>`case when ${stillInForce} then
      case when session_inputs.delivery_seq is null then '{}'::jsonb
        else jsonb_build_object(session_inputs.delivery_seq::text, session_inputs.delivery) end
    else aw_ledger_deliveries(session_inputs.deliveries, excluded.status, excluded.status_seq)
    end`,
};
