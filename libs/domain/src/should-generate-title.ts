import { codePointLength, collapseWhitespace } from './text.ts';

/** Minimum length, in code points after normalisation, of an input worth a title (R9.5). */
const TITLE_GENERATION_MIN_INPUT = 10;

/**
 * Title generation configuration as a session receives it (R9.5): absent means off, an
 * empty object turns it on, `enabled: false` turns it off.
 */
export interface TitleGenerationConfig {
  readonly enabled?: boolean;
}

/** Everything R9.5 looks at, gathered by the caller. */
export interface TitleGenerationFacts {
  /** Generation was already attempted in this session. */
  readonly attemptedBefore: boolean;
  /** The session has (or was asked for) a user rename: a custom title stands (R9.3). */
  readonly customTitle?: boolean;
  /** The session's title generation config; `undefined` means off. */
  readonly config: TitleGenerationConfig | undefined;
  readonly hasSessionStore: boolean;
  readonly isChildSession: boolean;
  /** The session's task type; absent or `interactive` allow generation. */
  readonly taskType?: string | undefined;
  /** Zero-based number of the turn whose input this is. */
  readonly turnNumber: number;
  /** The first input, raw. */
  readonly input: string;
  /** A caller such as `/goal` may bypass the short-input guard (not the empty one). */
  readonly bypassShortInputGuard?: boolean;
}

/** Why generation is not attempted, in the order R9.5 checks. */
type TitleGenerationSkipReason =
  | 'already_attempted'
  | 'custom_title'
  | 'not_configured'
  | 'disabled'
  | 'no_session_store'
  | 'child_session'
  | 'non_interactive_task'
  | 'not_first_turn'
  | 'empty_input'
  | 'input_too_short';

/** Outcome of {@link shouldGenerateTitle}. */
export type TitleGenerationDecision =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: TitleGenerationSkipReason };

/**
 * Whether to attempt title generation (R9.5, R16.5): all conditions must hold; the first
 * failing one is the reason. A custom title stands (R9.3): no generation over a rename. The length guard counts code points after trimming and
 * collapsing whitespace; short first inputs are already good titles.
 */
export function shouldGenerateTitle(facts: TitleGenerationFacts): TitleGenerationDecision {
  const skip = (reason: TitleGenerationSkipReason) => ({ ok: false, reason }) as const;
  if (facts.attemptedBefore) return skip('already_attempted');
  if (facts.customTitle === true) return skip('custom_title');
  if (facts.config === undefined) return skip('not_configured');
  if (facts.config.enabled === false) return skip('disabled');
  if (!facts.hasSessionStore) return skip('no_session_store');
  if (facts.isChildSession) return skip('child_session');
  if (facts.taskType !== undefined && facts.taskType !== 'interactive') {
    return skip('non_interactive_task');
  }
  if (facts.turnNumber !== 0) return skip('not_first_turn');
  const normalised = collapseWhitespace(facts.input);
  if (normalised === '') return skip('empty_input');
  if (!facts.bypassShortInputGuard && codePointLength(normalised) < TITLE_GENERATION_MIN_INPUT) {
    return skip('input_too_short');
  }
  return { ok: true };
}
