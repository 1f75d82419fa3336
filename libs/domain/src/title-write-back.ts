import type { TitleSource } from '@agentwire/contracts';
import { OVERWRITABLE_TITLE_SOURCES } from './title-source.ts';

/** A title with its source (R9.1). */
export interface SessionTitle {
  readonly title: string;
  readonly source: TitleSource;
}

/** Facts a title write-back is decided on (R9.3, R9.9, R16.5). */
export interface TitleWriteBackFacts {
  /** The title and source stored now (re-read right before deciding). */
  readonly current: SessionTitle;
  /** The title about to be written. */
  readonly candidate: SessionTitle;
  /** The session's first question was edited since the candidate was derived from it. */
  readonly firstQuestionEdited: boolean;
  /** The session's first question was rewound away. */
  readonly firstQuestionRewound: boolean;
}

/** Why an automatic title is dropped. */
export type TitleWriteBackSkipReason =
  | 'custom_title'
  | 'first_question_edited'
  | 'first_question_rewound';

/** Outcome of {@link decideTitleWriteBack}. */
export type TitleWriteBackDecision =
  | {
      readonly ok: true;
      /** The title to store. */
      readonly write: SessionTitle;
      /** Compare-and-set condition for the store's title update (R16.4). */
      readonly expectedSources: readonly TitleSource[];
      /** Emit `session_title_updated`: only when title or source changed (R16.5). */
      readonly emit: boolean;
    }
  | { readonly ok: false; readonly reason: TitleWriteBackSkipReason };

const ANY_SOURCE: readonly TitleSource[] = ['default', 'first_input', 'generated', 'custom'];
const overwritable: ReadonlySet<TitleSource> = new Set(OVERWRITABLE_TITLE_SOURCES);

/**
 * Decides whether a title is written (R9.3, R9.9, R16.5). A user rename (`custom`) always
 * applies. An automatic title (`first_input`, `generated`, or `default`) applies only while
 * the stored source is `default`, `first_input` or `generated`, and only while the first
 * question is neither edited nor rewound away; otherwise it is dropped.
 */
export function decideTitleWriteBack(facts: TitleWriteBackFacts): TitleWriteBackDecision {
  const { current, candidate } = facts;
  const emit = current.title !== candidate.title || current.source !== candidate.source;
  if (candidate.source === 'custom') {
    return { ok: true, write: candidate, expectedSources: ANY_SOURCE, emit };
  }
  if (!overwritable.has(current.source)) return { ok: false, reason: 'custom_title' };
  if (facts.firstQuestionEdited) return { ok: false, reason: 'first_question_edited' };
  if (facts.firstQuestionRewound) return { ok: false, reason: 'first_question_rewound' };
  return { ok: true, write: candidate, expectedSources: OVERWRITABLE_TITLE_SOURCES, emit };
}
