import { collapseWhitespace, truncateWithEllipsis } from './text.ts';

/** Longest generated title kept as is, in code points (R9.8, R16.5). */
const GENERATED_TITLE_MAX = 100;

/** A title model's reply, as the title sidecar received it. */
export interface TitleReply {
  readonly text: string;
  /** The reply asked for tool calls: it gives no title (R16.5). */
  readonly hasToolCalls?: boolean;
}

/** Why a reply gave no title. */
type CleanTitleFailure = 'tool_calls' | 'empty' | 'no_meaningful_characters';

/** Outcome of {@link cleanTitle}. */
export type CleanTitleResult =
  | { readonly ok: true; readonly title: string }
  | { readonly ok: false; readonly reason: CleanTitleFailure };

const THINKING_BLOCK = /<(think|thinking|reasoning)\b[^>]*>[\s\S]*?<\/\1\s*>/giu;
const UNCLOSED_THINKING = /<(think|thinking|reasoning)\b[^>]*>[\s\S]*$/iu;
const JSON_FENCE = /```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)```/iu;
const FENCE_LINE = /^```/u;
const EDGE_QUOTES = /^[\s"'`\u2018\u2019\u201C\u201D]+|[\s"'`\u2018\u2019\u201C\u201D]+$/gu;
const TRAILING_PUNCTUATION = /[.。!！?？:：,，;；]+$/u;
const MEANINGFUL =
  /[A-Za-z0-9\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function titleFromJson(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && 'title' in value) {
      const title = (value as { title: unknown }).title;
      if (typeof title === 'string') return title;
    }
  } catch {
    // Not JSON: the caller falls back to a code fence, then to the first line (R16.5).
  }
  return undefined;
}

function pickCandidate(text: string): string {
  const whole = titleFromJson(text);
  if (whole !== undefined) return whole;
  const fence = JSON_FENCE.exec(text);
  const fenced = fence?.[1] === undefined ? undefined : titleFromJson(fence[1].trim());
  if (fenced !== undefined) return fenced;
  const line = text.split(/\r?\n/u).find((l) => l.trim() !== '' && !FENCE_LINE.test(l.trim()));
  return line ?? '';
}

/**
 * Cleans a title model's reply (R9.8), in R16.5's order:
 * 1. drop thinking blocks (`<think>`, `<thinking>`, `<reasoning>`, case-insensitive; an
 *    unclosed one runs to the end) and trim;
 * 2. parse the whole text as JSON, else the contents of a json code fence, taking a string
 *    `title`; else the first non-empty line (code-fence marker lines skipped);
 * 3. strip leading `#`;
 * 4. trim whitespace and straight, back and curly quotes at both ends;
 * 5. strip trailing `. 。 ! ！ ? ？ : ： , ， ; ；`;
 * 6. collapse whitespace;
 * 7. reject a title with no ASCII letter, digit or CJK character;
 * 8. over 100 code points, cut to 97 and add `...`.
 * A reply with tool calls, or an empty title, gives no title.
 */
export function cleanTitle(reply: TitleReply): CleanTitleResult {
  if (reply.hasToolCalls) return { ok: false, reason: 'tool_calls' };
  const text = reply.text.replace(THINKING_BLOCK, '').replace(UNCLOSED_THINKING, '').trim();
  let title = pickCandidate(text);
  title = title.replace(/^\s*#+/u, '');
  title = title.replace(EDGE_QUOTES, '');
  title = title.replace(TRAILING_PUNCTUATION, '');
  title = collapseWhitespace(title);
  if (title === '') return { ok: false, reason: 'empty' };
  if (!MEANINGFUL.test(title)) return { ok: false, reason: 'no_meaningful_characters' };
  return { ok: true, title: truncateWithEllipsis(title, GENERATED_TITLE_MAX) };
}
