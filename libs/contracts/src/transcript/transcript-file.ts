/**
 * The transcript file (issue 12 item 5, docs/decisions/0241): a session exported as JSON
 * Lines and imported back as a new session. Line 1 is the header; every further line is
 * one message with its parts, in the transcript's order. Messages keep their tree links
 * (`treeParentId`), so every branch round-trips.
 */
import { z } from 'zod';
import { Message } from '../messages/message.ts';
import { Part } from '../parts/part.ts';
import { SessionId } from '../session-event.ts';

/** The format's name, in the header. */
export const TRANSCRIPT_FORMAT = 'agentwire-transcript';

/** The largest file a request or a reply carries inline (below NATS's default 1 MiB). */
export const TRANSCRIPT_INLINE_BYTES = 900 * 1024;
/** The largest file an export makes and an import takes, carried through an object store. */
export const TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024;

/** Line 1 of a transcript file. */
export const TranscriptHeader = z.strictObject({
  format: z.literal(TRANSCRIPT_FORMAT),
  version: z.literal(1),
  sessionId: SessionId,
  title: z.string().nullable(),
  exportedAt: z.number().int().nonnegative(),
});
export type TranscriptHeader = z.infer<typeof TranscriptHeader>;

/** Every further line: one message and its parts. */
export const TranscriptEntry = z.strictObject({ message: Message, parts: z.array(Part) });
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;

/** A transcript file's text: the header, then one line per message, each ending in `\n`. */
export function formatTranscript(
  header: TranscriptHeader,
  entries: readonly TranscriptEntry[],
): string {
  return [header, ...entries].map((line) => `${JSON.stringify(line)}\n`).join('');
}

/** Why a transcript file was refused: `code`, the line (1-based; 0: the whole file), what. */
export interface TranscriptFileError {
  readonly code: 'transcript_too_large' | 'invalid_transcript';
  readonly line: number;
  readonly message: string;
}

/** A transcript file, read and checked. */
export type ParsedTranscript =
  | { readonly ok: true; readonly header: TranscriptHeader; readonly entries: TranscriptEntry[] }
  | { readonly ok: false; readonly error: TranscriptFileError };

const refuse = (line: number, message: string): ParsedTranscript => ({
  ok: false,
  error: { code: 'invalid_transcript', line, message },
});

/**
 * Reads a transcript file, refusing (never throwing) on the first thing wrong: over
 * `maxBytes`, a line that is not JSON or not its schema, a message or part of another
 * session than the header's, a duplicate id, a part of no message, a `treeParentId` that
 * names no message or forms a cycle, no messages at all.
 */
export function parseTranscript(
  text: string,
  limits: { readonly maxBytes: number; readonly maxMessages: number },
): ParsedTranscript {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes) {
    return {
      ok: false,
      error: {
        code: 'transcript_too_large',
        line: 0,
        message: `the transcript is ${bytes} bytes, over the ${limits.maxBytes}-byte limit`,
      },
    };
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const json = (i: number): { ok: true; value: unknown } | { ok: false } => {
    try {
      return { ok: true, value: JSON.parse(lines[i] as string) };
    } catch {
      return { ok: false };
    }
  };
  const first = json(0);
  if (!first.ok) return refuse(1, 'line 1 is not JSON');
  const header = TranscriptHeader.safeParse(first.value);
  if (!header.success) {
    return refuse(1, `line 1 is not a transcript header: ${header.error.issues[0]?.message ?? ''}`);
  }
  if (lines.length < 2)
    return refuse(0, 'a transcript holds a header line and at least one message');
  if (lines.length - 1 > limits.maxMessages) {
    return {
      ok: false,
      error: {
        code: 'transcript_too_large',
        line: 0,
        message: `the transcript holds ${lines.length - 1} messages, over the ${limits.maxMessages} limit`,
      },
    };
  }
  const sid = header.data.sessionId;
  const entries: TranscriptEntry[] = [];
  const ids = new Set<string>();
  const partIds = new Set<string>();
  for (let i = 1; i < lines.length; i += 1) {
    const line = i + 1;
    const value = json(i);
    if (!value.ok) return refuse(line, `line ${line} is not JSON`);
    const entry = TranscriptEntry.safeParse(value.value);
    if (!entry.success) {
      const issue = entry.error.issues[0];
      return refuse(line, `line ${line}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
    }
    const { message, parts } = entry.data;
    if (message.sessionId !== sid) {
      return refuse(
        line,
        `line ${line}: message ${message.id} is of session ${message.sessionId}, not ${sid}`,
      );
    }
    if (ids.has(message.id))
      return refuse(line, `line ${line}: message ${message.id} appears twice`);
    ids.add(message.id);
    for (const p of parts) {
      if (p.messageId !== message.id || p.sessionId !== sid) {
        return refuse(line, `line ${line}: part ${p.id} is not of message ${message.id}`);
      }
      if (partIds.has(p.id)) return refuse(line, `line ${line}: part ${p.id} appears twice`);
      partIds.add(p.id);
    }
    entries.push(entry.data);
  }
  // Every named parent exists, and walking parents from any message ends at a root.
  const parent = new Map<string, string | null | undefined>();
  for (const e of entries) parent.set(e.message.id, e.message.treeParentId);
  const rooted = new Set<string>();
  for (const [i, e] of entries.entries()) {
    const named = e.message.treeParentId;
    if (named != null && !parent.has(named)) {
      return refuse(
        i + 2,
        `line ${i + 2}: treeParentId ${named} names no message of the transcript`,
      );
    }
    // Each walk stops at a message already known to reach a root: linear overall.
    const path: string[] = [];
    const onPath = new Set<string>();
    let at: string | null | undefined = e.message.id;
    while (at != null && !rooted.has(at)) {
      if (onPath.has(at)) {
        return refuse(i + 2, `line ${i + 2}: the parents of message ${e.message.id} form a cycle`);
      }
      onPath.add(at);
      path.push(at);
      at = parent.get(at);
    }
    for (const id of path) rooted.add(id);
  }
  return { ok: true, header: header.data, entries };
}
