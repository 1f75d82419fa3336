import type { Kysely, Transaction } from 'kysely';
import { admitConflictSet, closeDeliverySet, mergeDeliverySet } from './ledger-sql.ts';
import type { Database, SessionInputRow } from './schema.ts';
import { json, toDate, withStoreError } from './transaction.ts';

/** R14.1 delivery modes. */
export type LedgerDeliveryValue = 'startNow' | 'guide' | 'queue';
/** R14.2 ledger statuses; every one but `admitted` is terminal. */
export type LedgerStatusValue = 'admitted' | 'promoted' | 'cancelled' | 'discarded' | 'failed';
/** The terminal statuses a close (not a promotion) may set. */
export type LedgerCloseStatus = 'cancelled' | 'discarded' | 'failed';

/**
 * Ledger writes tolerate any arrival order (docs/decisions/0031): whichever write comes
 * first creates the row, later ones fill in their own columns. A row whose
 * `admitted_seq` is null has not seen its admission yet and is not listed.
 */

/** Input of {@link admitInput}: `turn_steer_queued` (R6, R14.1). */
export interface AdmitInputArgs {
  /** The ledger id, = the pending input id (the input's command id). */
  readonly id: string;
  readonly sessionId: string;
  readonly kind: string;
  readonly delivery: LedgerDeliveryValue;
  /** The full input payload (JSON). */
  readonly payload: unknown;
  /** Sequence number of the admission event. */
  readonly sequence: number;
  readonly at: number | string | Date;
}

/**
 * Registers an input as `admitted` (R14.2), idempotent per id. If later writes arrived
 * first, fills in the admission columns and keeps their status and (newer) delivery. A
 * later admission of the same id is an edit: its payload replaces the stored one while
 * the row is admitted (docs/decisions/0222).
 */
export async function admitInput(db: Kysely<Database>, args: AdmitInputArgs): Promise<void> {
  await withStoreError('admitInput', () =>
    db
      .insertInto('session_inputs')
      .values({
        id: args.id,
        session_id: args.sessionId,
        kind: args.kind,
        delivery: args.delivery,
        delivery_seq: args.sequence,
        deliveries: json({ [args.sequence]: args.delivery }),
        payload: json(args.payload),
        payload_seq: args.sequence,
        admitted_seq: args.sequence,
        position: args.sequence,
        status: 'admitted',
        admitted_at: toDate(args.at),
      })
      .onConflict((oc) => oc.columns(['session_id', 'id']).doUpdateSet(admitConflictSet))
      .execute(),
  );
}

/** Input of {@link changeInputDelivery}: `turn_steer_delivery_changed` (R6, R14.4). */
export interface ChangeInputDeliveryArgs {
  readonly id: string;
  readonly sessionId: string;
  readonly delivery: LedgerDeliveryValue;
  readonly sequence: number;
}

/**
 * Records a delivery change (R14.2: it applies only while the row is `admitted`).
 * Order-tolerant without conditions (docs/decisions/0034): the change is added to the
 * row's delivery facts, and `aw_ledger_deliveries` keeps it only if it is at or before the
 * sequence that closed the row (a promotion carries the session's latest number at
 * promotion, so a change with that very number preceded it). `delivery` is generated
 * from the newest kept fact, so any arrival order gives the same row.
 */
export async function changeInputDelivery(
  db: Kysely<Database>,
  args: ChangeInputDeliveryArgs,
): Promise<void> {
  await withStoreError('changeInputDelivery', () =>
    db
      .insertInto('session_inputs')
      .values({
        id: args.id,
        session_id: args.sessionId,
        delivery: args.delivery,
        delivery_seq: args.sequence,
        deliveries: json({ [args.sequence]: args.delivery }),
        status: 'admitted',
      })
      .onConflict((oc) => oc.columns(['session_id', 'id']).doUpdateSet(mergeDeliverySet))
      .execute(),
  );
}

/** Input of {@link closeInput}: `turn_steer_discarded` or a failure (R14.2). */
export interface CloseInputArgs {
  readonly id: string;
  readonly sessionId: string;
  readonly status: LedgerCloseStatus;
  readonly reason: string;
  /** Sequence number of the closing event, when an event closed it. */
  readonly sequence?: number | undefined;
  readonly at: number | string | Date;
}

/**
 * Closes an `admitted` input as cancelled, discarded or failed (R14.2). A terminal row
 * never changes again, so a close arriving after another terminal state is a no-op.
 * Returns whether this call closed the row.
 */
export async function closeInput(
  db: Kysely<Database>,
  args: CloseInputArgs,
): Promise<{ closed: boolean }> {
  const row = await withStoreError('closeInput', () =>
    db
      .insertInto('session_inputs')
      .values({
        id: args.id,
        session_id: args.sessionId,
        status: args.status,
        status_reason: args.reason,
        status_seq: args.sequence ?? null,
        settled_at: toDate(args.at),
      })
      .onConflict((oc) =>
        oc
          .columns(['session_id', 'id'])
          .doUpdateSet({
            status: (eb) => eb.ref('excluded.status'),
            status_reason: (eb) => eb.ref('excluded.status_reason'),
            status_seq: (eb) => eb.ref('excluded.status_seq'),
            settled_at: (eb) => eb.ref('excluded.settled_at'),
            ...closeDeliverySet,
          })
          .where('session_inputs.status', '=', 'admitted'),
      )
      .returning('id')
      .executeTakeFirst(),
  );
  return { closed: row !== undefined };
}

/** Input of {@link promoteInput}. */
export interface PromoteInputArgs {
  readonly id: string;
  readonly sessionId: string;
  /** The user message that carries the input into the transcript. */
  readonly messageId: string;
  /** Sequence number at promotion (R14.1), when the caller knows it. */
  readonly sequence?: number | undefined;
  readonly at: number | string | Date;
}

/** Outcome of {@link promoteInput}. */
export type PromoteInputOutcome =
  | { readonly ok: true; readonly alreadyPromoted: boolean }
  | {
      readonly ok: false;
      readonly reason: 'input_not_admitted';
      readonly status: LedgerStatusValue;
      readonly messageId: string | null;
    };

/**
 * Marks an input `promoted` with its message id (R7.3, R14.2), inside the caller's
 * transaction so the user message is written in the same one. Only an `admitted` row is
 * promoted; promoting again with the same message id is an idempotent success; any other
 * terminal row refuses (the caller then writes no message).
 */
export async function promoteInput(
  trx: Transaction<Database>,
  args: PromoteInputArgs,
): Promise<PromoteInputOutcome> {
  const row = await trx
    .insertInto('session_inputs')
    .values({
      id: args.id,
      session_id: args.sessionId,
      status: 'promoted',
      message_id: args.messageId,
      promoted_seq: args.sequence ?? null,
      status_seq: args.sequence ?? null,
      settled_at: toDate(args.at),
    })
    .onConflict((oc) =>
      oc
        .columns(['session_id', 'id'])
        .doUpdateSet({
          status: 'promoted',
          message_id: (eb) => eb.ref('excluded.message_id'),
          promoted_seq: (eb) => eb.ref('excluded.promoted_seq'),
          status_seq: (eb) => eb.ref('excluded.status_seq'),
          settled_at: (eb) => eb.ref('excluded.settled_at'),
          ...closeDeliverySet,
        })
        .where('session_inputs.status', '=', 'admitted'),
    )
    .returning('id')
    .executeTakeFirst();
  if (row !== undefined) return { ok: true, alreadyPromoted: false };
  const current = await trx
    .selectFrom('session_inputs')
    .select(['status', 'message_id'])
    .where('session_id', '=', args.sessionId)
    .where('id', '=', args.id)
    .executeTakeFirstOrThrow();
  if (current.status === 'promoted' && current.message_id === args.messageId) {
    return { ok: true, alreadyPromoted: true };
  }
  return {
    ok: false,
    reason: 'input_not_admitted',
    status: current.status as LedgerStatusValue,
    messageId: current.message_id,
  };
}

/** Reads one ledger row of a session by input id (R16.4), including one not yet admitted. */
export async function getInput(
  db: Kysely<Database>,
  sessionId: string,
  id: string,
): Promise<SessionInputRow | undefined> {
  return withStoreError('getInput', () =>
    db
      .selectFrom('session_inputs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('id', '=', id)
      .executeTakeFirst(),
  );
}

/** The key of one ledger row (docs/decisions/0111): an input id is unique within its session. */
export function ledgerKey(sessionId: string, id: string): string {
  return `${sessionId}/${id}`;
}

/**
 * Lists a session's admitted-and-seen ledger rows in queue order (R16.4), optionally by
 * status. Rows whose admission has not arrived yet are left out.
 */
export async function listInputs(
  db: Kysely<Database>,
  sessionId: string,
  filter: { readonly status?: readonly LedgerStatusValue[] } = {},
): Promise<SessionInputRow[]> {
  let q = db
    .selectFrom('session_inputs')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('admitted_seq', 'is not', null);
  if (filter.status !== undefined && filter.status.length > 0) {
    q = q.where('status', 'in', [...filter.status]);
  }
  const query = q.orderBy('position').orderBy('id');
  return withStoreError('listInputs', () => query.execute());
}
