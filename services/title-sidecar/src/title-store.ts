import type { TitleSource } from '@agentwire/contracts';
import { replaceableTitleSources } from '@agentwire/domain';
import {
  type createDatabase,
  getSession,
  StoreError,
  type UpdateTitleOutcome,
  updateTitle,
} from '@agentwire/store';

/**
 * A generated title to write back (R9.9).
 *
 * @internal Exported for its tests.
 */
export interface GeneratedTitleWrite {
  readonly sessionId: string;
  readonly title: string;
  readonly expectedFirstInput?: string | undefined;
  readonly now: number;
}

/** What the sidecar needs of the store (DESIGN.md: its only Postgres write is this one). */
export interface TitleStore {
  /** Whether the session is persisted (ensured, not a stub). */
  sessionExists(sessionId: string): Promise<boolean>;
  /**
   * Writes `title` with source `generated` only while the stored source is `default`,
   * `first_input` or `generated` and the first input is unedited (R9.9, R16.5).
   */
  writeGeneratedTitle(write: GeneratedTitleWrite): Promise<UpdateTitleOutcome>;
}

/** The source a generated title is stored with (R9.1). */
export const GENERATED_SOURCE: TitleSource = 'generated';

/** The {@link TitleStore} on Postgres: `getSession` and the compare-and-set `updateTitle`. */
export function pgTitleStore(db: ReturnType<typeof createDatabase>): TitleStore {
  return {
    async sessionExists(sessionId) {
      const row = await getSession(db, sessionId);
      return row !== undefined && row.created_at !== null;
    },
    writeGeneratedTitle(write) {
      return updateTitle(db, {
        sessionId: write.sessionId,
        title: write.title,
        source: 'generated',
        expectedSources: replaceableTitleSources('generated'),
        requireFirstInputUnedited: true,
        expectedFirstInput: write.expectedFirstInput,
        updatedAt: write.now,
      });
    },
  };
}

/** Whether a store failure may pass on retry (classified once by `@agentwire/store`). */
export function isRetryableStoreError(error: unknown): boolean {
  return error instanceof StoreError ? error.retryable : true;
}
