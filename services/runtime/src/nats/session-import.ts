import { type BlobStore, BusError } from '@agentwire/bus';
import type { Message, Part, TranscriptEntry } from '@agentwire/contracts';
import {
  parseTranscript,
  TRANSCRIPT_INLINE_BYTES,
  TRANSCRIPT_MAX_BYTES,
} from '@agentwire/contracts';
import { RuntimeError } from '@agentwire/engine';
import { CommandWriter } from './command-writer.ts';
import type { Resident } from './resident-pool.ts';
import type { RuntimeHostOptions } from './runtime-host-options.ts';

/** Messages an import takes at most. */
const MAX_MESSAGES = 10_000;
/** How much of the transcript one `import_messages` command carries (JSON bytes). */
const CHUNK_BYTES = 256 * 1024;

/**
 * An import's file from its open request (0241): inline, or read from the uploads bucket by
 * its reference; undefined when the request is no import. A reference to nothing is
 * `invalid_transcript` (line 0); an unreadable bucket is retryable.
 */
export async function transcriptOf(
  req: { readonly transcript?: string | undefined; readonly transcriptRef?: string | undefined },
  uploads: BlobStore,
): Promise<{ text: string; carried: 'inline' | 'uploaded' } | undefined> {
  if (req.transcript !== undefined) return { text: req.transcript, carried: 'inline' };
  if (req.transcriptRef === undefined) return undefined;
  try {
    return { text: await uploads.get(req.transcriptRef), carried: 'uploaded' };
  } catch (error) {
    if (!(error instanceof BusError)) throw error;
    if (error.code !== 'blob_missing') {
      throw new RuntimeError(
        'internal',
        `the uploaded transcript cannot be read: ${error.message}`,
        {
          retryable: true,
        },
      );
    }
    throw new RuntimeError(
      'invalid_transcript',
      `no uploaded transcript ${req.transcriptRef.slice(0, 120)}`,
      { line: 0 },
    );
  }
}

/** What {@link importSession} works with: the host's options and its activation. */
export interface ImportDeps {
  readonly o: RuntimeHostOptions;
  readonly activate: (sessionId: string) => Promise<Resident>;
}

/** One entry with every id made the new session's (`id` + suffix), links kept. */
function remapped(e: TranscriptEntry, sessionId: string, sfx: string): TranscriptEntry {
  const id = (old: string) => `${old}${sfx}`;
  const m = e.message;
  const link = m.treeParentId == null ? {} : { treeParentId: id(m.treeParentId) };
  const message: Message =
    m.role === 'assistant'
      ? { ...m, ...link, id: id(m.id), sessionId, parentId: id(m.parentId) }
      : { ...m, ...link, id: id(m.id), sessionId };
  const parts = e.parts.map(
    (p): Part => ({ ...p, id: id(p.id), messageId: id(p.messageId), sessionId }) as Part,
  );
  return { message, parts };
}

/**
 * An import (issue 12 item 5, docs/decisions/0241), the replacement skeleton of a fork
 * (0240) with a file as the source: the file is checked whole before anything is written
 * (a refusal changes nothing); then the new row and the messages, in chunks, each
 * confirmed; then the new session is leased and cold-opened here like any other. Ids get
 * the new session's suffix, since ids are unique across sessions and the source may live in
 * the same store; the tree links follow.
 */
export async function importSession(
  deps: ImportDeps,
  text: string,
  carried: 'inline' | 'uploaded',
): Promise<{ sessionId: string; resident: Resident; messages: number }> {
  // Inline, one request's payload; uploaded (the file in the uploads bucket), more.
  const maxBytes = carried === 'inline' ? TRANSCRIPT_INLINE_BYTES : TRANSCRIPT_MAX_BYTES;
  const parsed = parseTranscript(text, { maxBytes, maxMessages: MAX_MESSAGES });
  if (!parsed.ok) {
    const { code, line, message } = parsed.error;
    throw new RuntimeError(code, message, { line });
  }
  const { o } = deps;
  const sessionId = o.ids.newId('ses');
  const sfx = `_${sessionId.slice(-10)}`;
  const entries = parsed.entries.map((e) => remapped(e, sessionId, sfx));
  const writer = new CommandWriter({ ...o, sessionId, confirmTimeoutMs: o.confirmTimeoutMs });
  const ctx = { sequence: 0, traceId: o.ids.newTraceId() };
  const confirm = (write: { confirmed: boolean; outcome?: string }, what: string) => {
    if (!write.confirmed || write.outcome === 'condition_failed') {
      throw new RuntimeError(
        'write_not_confirmed',
        `the import failed: the store did not confirm ${what}`,
        { retryable: true },
      );
    }
  };
  try {
    const { header } = parsed;
    confirm(
      await writer.ensureSession(
        {
          sessionId,
          parentSessionId: null,
          title: header.title ?? `Imported ${header.sessionId}`,
          titleSource: 'custom',
          firstInput: null,
          cwd: o.workspaceRoot,
          root: o.workspaceRoot,
          createdAt: o.clock.now(),
        },
        ctx,
      ),
      'the new session row',
    );
    let chunk: TranscriptEntry[] = [];
    let bytes = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      confirm(await writer.importMessages(chunk, ctx), 'the imported messages');
      chunk = [];
      bytes = 0;
    };
    for (const e of entries) {
      const size = JSON.stringify(e).length;
      if (bytes + size > CHUNK_BYTES) await flush();
      chunk.push(e);
      bytes += size;
    }
    await flush();
  } finally {
    writer.close();
  }
  return { sessionId, resident: await deps.activate(sessionId), messages: entries.length };
}
