import { QueryCursor } from '@agentwire/contracts';
import { type ChainRuns, MAX_CHAIN_RUNS } from '@agentwire/store';
import { z } from 'zod';

/**
 * The read side's page cursors: base64url JSON that names what it pages, so that a cursor
 * of another session, list or direction is refused (`bad_cursor`) rather than read as
 * something else. A cursor carries a key, never a row offset, so rows inserted meanwhile
 * neither repeat nor vanish from the pages (docs/decisions/0181).
 */

/** A session-list cursor: the last listed session's key and the filters it belongs to. */
const ListCursor = z.strictObject({
  v: z.literal(1),
  k: z.literal('sessions'),
  /** The filters the list was asked with, as canonical JSON. */
  f: z.string(),
  u: z.string().regex(/^-?\d{1,20}$/),
  i: z.string().min(1),
});
type ListCursor = z.infer<typeof ListCursor>;

/**
 * A history cursor: a message of one session and the direction to page in from it, and, when
 * it fits, the active chain its page was read along (`c`: leaf `l`, runs `r`), which the next
 * page reuses while that leaf is still the session's (docs/decisions/0248).
 */
const HistoryCursor = z.strictObject({
  v: z.literal(1),
  k: z.literal('history'),
  s: z.string().min(1),
  m: z.string().min(1),
  d: z.enum(['older', 'newer']),
  c: z
    .strictObject({
      l: z.string().min(1),
      r: z
        .array(z.tuple([z.string().min(1), z.string().min(1)]))
        .min(1)
        .max(MAX_CHAIN_RUNS),
    })
    .optional(),
});
type HistoryCursor = z.infer<typeof HistoryCursor>;

/** A cursor that was refused, and why (the message of the `bad_cursor` reply). */
export interface CursorProblem {
  readonly ok: false;
  readonly message: string;
}

function encode(value: ListCursor | HistoryCursor): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decode(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const notIssued: CursorProblem = { ok: false, message: 'cursor is not one this service issued' };

/** The cursor of the list page after the session with key `(updatedUs, id)`. */
export function listCursor(filters: string, updatedUs: string, id: string): string {
  return encode({ v: 1, k: 'sessions', f: filters, u: updatedUs, i: id });
}

/** Reads a list cursor issued for `filters`. */
export function readListCursor(
  cursor: string,
  filters: string,
): { readonly ok: true; readonly updatedUs: string; readonly id: string } | CursorProblem {
  const raw = decode(cursor);
  const parsed = ListCursor.safeParse(raw);
  if (!parsed.success) {
    return HistoryCursor.safeParse(raw).success
      ? { ok: false, message: 'cursor is a history cursor, not a session-list cursor' }
      : notIssued;
  }
  if (parsed.data.f !== filters) {
    return { ok: false, message: 'cursor was issued for other filters than these' };
  }
  return { ok: true, updatedUs: parsed.data.u, id: parsed.data.i };
}

/**
 * The cursor of the messages older or newer than `messageId` in `sessionId`, carrying
 * `chain` when the cursor still fits the length every cursor keeps to (`QueryCursor`).
 */
export function historyCursor(
  sessionId: string,
  messageId: string,
  direction: 'older' | 'newer',
  chain: ChainRuns | null = null,
): string {
  const plain = { v: 1, k: 'history', s: sessionId, m: messageId, d: direction } as const;
  if (chain !== null && chain.runs.length > 0) {
    const carried = encode({
      ...plain,
      c: { l: chain.leaf, r: chain.runs.map(([first, last]) => [first, last] as [string, string]) },
    });
    if (QueryCursor.safeParse(carried).success) return carried;
  }
  return encode(plain);
}

/** Reads a history cursor of `sessionId`. */
export function readHistoryCursor(
  cursor: string,
  sessionId: string,
):
  | {
      readonly ok: true;
      readonly messageId: string;
      readonly direction: 'older' | 'newer';
      readonly chain?: ChainRuns;
    }
  | CursorProblem {
  const raw = decode(cursor);
  const parsed = HistoryCursor.safeParse(raw);
  if (!parsed.success) {
    return ListCursor.safeParse(raw).success
      ? { ok: false, message: 'cursor is a session-list cursor, not a history cursor' }
      : notIssued;
  }
  if (parsed.data.s !== sessionId) {
    return { ok: false, message: `cursor belongs to session ${parsed.data.s}, not ${sessionId}` };
  }
  const { m, d, c } = parsed.data;
  return c === undefined
    ? { ok: true, messageId: m, direction: d }
    : { ok: true, messageId: m, direction: d, chain: { leaf: c.l, runs: c.r } };
}
