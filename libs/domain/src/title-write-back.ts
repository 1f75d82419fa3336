import type { TitleSource } from '@agentwire/contracts';
import { OVERWRITABLE_TITLE_SOURCES } from './title-source.ts';

const ANY_SOURCE: readonly TitleSource[] = ['default', 'first_input', 'generated', 'custom'];

/**
 * The stored sources a title from `source` may replace (R9.3, R9.9, R16.4): a user rename
 * (`custom`) replaces any title, an automatic one only another automatic one. Writers send
 * this as the compare-and-set condition of their title update.
 */
export function replaceableTitleSources(source: TitleSource): readonly TitleSource[] {
  return source === 'custom' ? ANY_SOURCE : OVERWRITABLE_TITLE_SOURCES;
}

/** What a title write is decided on, read under the session row's lock. */
export interface TitleWriteBackFacts {
  readonly stored: {
    readonly title: string | null;
    readonly source: TitleSource;
    readonly firstInput: string | null;
    /** The first question was edited or rewound away since the session began (R9.9). */
    readonly firstInputEdited: boolean;
  };
  readonly candidate: { readonly title: string; readonly source: TitleSource };
  /** The compare-and-set condition the writer sent ({@link replaceableTitleSources}). */
  readonly expectedSources: readonly TitleSource[];
  /** Defaults to true for every source but `custom`: a rename applies even then (R9.3). */
  readonly requireFirstInputUnedited?: boolean | undefined;
  /** The first input the candidate was derived from, when the writer knows it (R9.9). */
  readonly expectedFirstInput?: string | undefined;
}

/** Outcome of {@link decideTitleWriteBack}. */
export type TitleWriteBackDecision =
  | {
      readonly ok: true;
      /** False when title and source were already these: emit no event then (R16.5). */
      readonly changed: boolean;
    }
  | { readonly ok: false; readonly reason: 'source_mismatch' | 'first_input_edited' };

/**
 * Decides whether a title is written (R9.3, R9.9, R16.5): only while the stored source is
 * one the writer expected (so no automatic title ever replaces a rename), and, for an
 * automatic title, only while the first question it was derived from is unedited and still
 * the one stored. The store runs it inside the title update's transaction.
 */
export function decideTitleWriteBack(facts: TitleWriteBackFacts): TitleWriteBackDecision {
  const { stored, candidate } = facts;
  if (!facts.expectedSources.includes(stored.source)) {
    return { ok: false, reason: 'source_mismatch' };
  }
  const requireUnedited = facts.requireFirstInputUnedited ?? candidate.source !== 'custom';
  const firstInputChanged =
    facts.expectedFirstInput !== undefined && stored.firstInput !== facts.expectedFirstInput;
  if ((requireUnedited && stored.firstInputEdited) || firstInputChanged) {
    return { ok: false, reason: 'first_input_edited' };
  }
  return {
    ok: true,
    changed: stored.title !== candidate.title || stored.source !== candidate.source,
  };
}
