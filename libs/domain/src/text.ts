/**
 * Small text helpers shared by the title rules (R9.2, R16.5). Lengths are counted in code
 * points, so that an emoji or a CJK character outside the BMP counts as one.
 */

/** Trims and collapses every run of whitespace to one space (R9.2, R16.5). */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** Number of Unicode code points in `text`. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Keeps `text` when it has at most `max` code points; otherwise cuts it to `max - 3` code
 * points and appends `...` (R9.2: 60 -> 57; R16.5: 100 -> 97).
 */
export function truncateWithEllipsis(text: string, max: number): string {
  if (codePointLength(text) <= max) return text;
  return `${Array.from(text)
    .slice(0, max - 3)
    .join('')}...`;
}
