import { decideTitleWriteBack } from '@agentwire/domain';
import type { Kysely } from 'kysely';
import type { Database, SessionRow } from './schema.ts';
import { inTransaction, json, toDate, withStoreError } from './transaction.ts';

/** R9.1 title sources. */
type TitleSourceValue = 'default' | 'first_input' | 'generated' | 'custom';

/** Input of {@link ensureSession}: the session's creation facts (R13.2, R16.4). */
export interface EnsureSessionInput {
  readonly id: string;
  readonly parentId?: string | null | undefined;
  readonly taskType?: string | null | undefined;
  readonly title?: string | null | undefined;
  readonly titleSource?: TitleSourceValue | null | undefined;
  readonly firstInput?: string | null | undefined;
  readonly cwd?: string | null | undefined;
  readonly root?: string | null | undefined;
  /** Extra metadata (JSON object). */
  readonly data?: Readonly<Record<string, unknown>> | undefined;
  readonly createdAt: number | string | Date;
}

/**
 * Creates the session row if absent (R13.2: born on its first persistence). A stub row
 * left by an earlier durable event (`created_at` null) is filled in; a complete row is
 * left as it is, so repeating the command changes nothing. `created` says whether this
 * call wrote the creation facts.
 */
export async function ensureSession(
  db: Kysely<Database>,
  input: EnsureSessionInput,
): Promise<{ created: boolean }> {
  const createdAt = toDate(input.createdAt);
  const values = {
    parent_id: input.parentId ?? null,
    task_type: input.taskType ?? null,
    title: input.title ?? null,
    title_source: input.titleSource ?? null,
    first_input: input.firstInput ?? null,
    cwd: input.cwd ?? null,
    root: input.root ?? null,
    data: json(input.data ?? {}),
    created_at: createdAt,
    updated_at: createdAt,
  };
  const row = await withStoreError('ensureSession', () =>
    db
      .insertInto('sessions')
      .values({ id: input.id, ...values })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet(values).where('sessions.created_at', 'is', null),
      )
      .returning('id')
      .executeTakeFirst(),
  );
  return { created: row !== undefined };
}

/** Reads one session row; a stub (not yet ensured) reads with `created_at` null. */
export async function getSession(
  db: Kysely<Database>,
  id: string,
): Promise<SessionRow | undefined> {
  return withStoreError('getSession', () =>
    db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
  );
}

/**
 * Filters of {@link listSessions} (R16.4).
 *
 * @internal Exported for its tests.
 */
export interface ListSessionsFilter {
  readonly cwd?: string;
  readonly taskTypes?: readonly string[];
  readonly archived?: boolean;
  readonly limit?: number;
}

/**
 * Lists ensured sessions, most recently updated first (R16.4). Stubs are not listed.
 *
 * @internal Exported for its tests.
 */
export async function listSessions(
  db: Kysely<Database>,
  filter: ListSessionsFilter = {},
): Promise<SessionRow[]> {
  let q = db.selectFrom('sessions').selectAll().where('created_at', 'is not', null);
  if (filter.cwd !== undefined) q = q.where('cwd', '=', filter.cwd);
  if (filter.taskTypes !== undefined && filter.taskTypes.length > 0) {
    q = q.where('task_type', 'in', [...filter.taskTypes]);
  }
  if (filter.archived !== undefined) q = q.where('archived', '=', filter.archived);
  const query = q
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(filter.limit ?? 100);
  return withStoreError('listSessions', () => query.execute());
}

/** Input of {@link updateTitle}. */
export interface UpdateTitleInput {
  readonly sessionId: string;
  readonly title: string;
  readonly source: TitleSourceValue;
  /** Applied only while the stored source is one of these (R9.9, R16.4). */
  readonly expectedSources: readonly TitleSourceValue[];
  /**
   * Applied only while the first input is unedited (R9.9). Defaults to true for every
   * source except `custom` (a user rename, R9.3).
   */
  readonly requireFirstInputUnedited?: boolean;
  /** Applied only while the stored first input equals this text (R9.9), when given. */
  readonly expectedFirstInput?: string | undefined;
  readonly updatedAt: number | string | Date;
}

/** Outcome of {@link updateTitle}. */
export type UpdateTitleOutcome =
  | {
      readonly applied: true;
      readonly previousTitle: string | null;
      readonly previousSource: TitleSourceValue;
      /** False when title and source were already these (R16.5: emit no event then). */
      readonly changed: boolean;
    }
  | {
      readonly applied: false;
      readonly reason: 'not_found' | 'source_mismatch' | 'first_input_edited';
    };

/**
 * Compare-and-set of the title on its source (R9.9, R16.4), as `decideTitleWriteBack` of
 * `@agentwire/domain` decides under the row's lock; otherwise reports why it was dropped.
 * A stub session (not yet ensured) reports `not_found`.
 */
export async function updateTitle(
  db: Kysely<Database>,
  input: UpdateTitleInput,
): Promise<UpdateTitleOutcome> {
  return inTransaction(db, 'updateTitle', async (trx) => {
    const current = await trx
      .selectFrom('sessions')
      .select(['title', 'title_source', 'first_input', 'first_input_edited', 'created_at'])
      .where('id', '=', input.sessionId)
      .forUpdate()
      .executeTakeFirst();
    if (current === undefined || current.created_at === null) {
      return { applied: false, reason: 'not_found' } as const;
    }
    const source = current.title_source as TitleSourceValue | null;
    if (source === null) return { applied: false, reason: 'source_mismatch' } as const;
    const decision = decideTitleWriteBack({
      stored: {
        title: current.title,
        source,
        firstInput: current.first_input,
        firstInputEdited: current.first_input_edited,
      },
      candidate: { title: input.title, source: input.source },
      expectedSources: input.expectedSources,
      requireFirstInputUnedited: input.requireFirstInputUnedited,
      expectedFirstInput: input.expectedFirstInput,
    });
    if (!decision.ok) return { applied: false, reason: decision.reason } as const;
    await trx
      .updateTable('sessions')
      .set({ title: input.title, title_source: input.source, updated_at: toDate(input.updatedAt) })
      .where('id', '=', input.sessionId)
      .execute();
    return {
      applied: true,
      previousTitle: current.title,
      previousSource: source,
      changed: decision.changed,
    } as const;
  });
}

/** Marks the first input as edited (or rewound away): no generated title applies (R9.9). */
export async function markFirstInputEdited(db: Kysely<Database>, sessionId: string): Promise<void> {
  await withStoreError('markFirstInputEdited', () =>
    db
      .updateTable('sessions')
      .set({ first_input_edited: true })
      .where('id', '=', sessionId)
      .execute(),
  );
}
