import { collapseWhitespace, truncateWithEllipsis } from './text.ts';

/**
 * The title of a session whose first input is empty (R9.2).
 *
 * @internal Exported for its tests.
 */
export const UNTITLED_SESSION_TITLE = 'Untitled session';

/** Longest first-input title kept as is, in code points (R9.2). */
const FIRST_INPUT_TITLE_MAX = 60;

/**
 * The title given on a session's first persistence (R9.2): the first input with whitespace
 * collapsed; up to 60 code points as is, longer inputs cut to 57 plus `...`; an empty (or
 * whitespace-only) input gives `Untitled session`.
 */
export function firstInputTitle(input: string): string {
  const collapsed = collapseWhitespace(input);
  if (collapsed === '') return UNTITLED_SESSION_TITLE;
  return truncateWithEllipsis(collapsed, FIRST_INPUT_TITLE_MAX);
}
