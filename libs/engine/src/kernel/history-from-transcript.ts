import type { ModelMessage } from '@agentwire/model';
import type { InputFile } from './feature.ts';
import { fileDataText, userContent } from './user-content.ts';

/** The fields of one persisted part that the model's history needs (R10.4). */
export interface TranscriptPart {
  readonly type: 'text' | 'tool' | 'file';
  readonly text: string | null;
  readonly toolCallId: string | null;
  readonly toolName: string | null;
  readonly status: string | null;
  readonly input: unknown;
  readonly output: string | null;
  readonly error: string | null;
  /** A file part's `data:` URL and file name (R7.3: `@file` references of a user message). */
  readonly url?: string | null;
  readonly filename?: string | null;
}

/** The fields of one persisted message that the model's history needs, with its parts. */
export interface TranscriptRow {
  readonly role: 'user' | 'assistant';
  /** `semantics.providerVisibility` (R7.8); `hidden` rows never reach the model. */
  readonly providerVisibility: string | null;
  readonly synthetic: boolean;
  /** `semantics.kind` (R7.8): `compact_summary` marks a compaction's summary (0229). */
  readonly kind?: string | null;
  readonly parts: readonly TranscriptPart[];
}

/**
 * The rows the model's history is made of, in its order: after a compaction, its summary,
 * then the prompt it kept and what followed that prompt (dated before the summary), then
 * what came after it (docs/decisions/0229). Rows before the kept prompt were summarised.
 */
function afterLastCompaction(rows: readonly TranscriptRow[]): readonly TranscriptRow[] {
  let summary = -1;
  for (let i = rows.length - 1; i >= 0 && summary < 0; i -= 1) {
    if (rows[i]?.kind === 'compact_summary') summary = i;
  }
  if (summary < 0) return rows;
  let kept = summary;
  for (let i = summary - 1; i >= 0; i -= 1) {
    const row = rows[i];
    if (row?.role === 'user' && !row.synthetic) {
      kept = i;
      break;
    }
  }
  return [rows[summary] as TranscriptRow, ...rows.slice(kept, summary), ...rows.slice(summary + 1)];
}

/**
 * Cold recovery (R10.4, DESIGN.md flow 5): rebuilds the conversation the model sees from
 * persisted messages and parts. User text, with its file parts, becomes a user message
 * (the same content the engine gave the model, `userContent`); an assistant message
 * becomes its text plus its tool calls, followed by one tool message per call (the
 * completed output, the error, or `runtime_lost` for a call that never closed). Messages
 * hidden from the provider are skipped. After a compaction it starts at the summary.
 */
export function historyFromTranscript(rows: readonly TranscriptRow[]): ModelMessage[] {
  const history: ModelMessage[] = [];
  for (const row of afterLastCompaction(rows)) {
    if (row.providerVisibility === 'hidden') continue;
    let text = '';
    const tools: TranscriptPart[] = [];
    const files: InputFile[] = [];
    for (const p of row.parts) {
      if (p.type === 'text') text += p.text ?? '';
      else if (p.type === 'file') {
        const content = p.url == null ? undefined : fileDataText(p.url);
        if (content !== undefined) {
          files.push({ path: p.filename ?? '', mime: '', text: content, bytes: 0 });
        }
      } else if (p.toolCallId !== null) tools.push(p);
    }
    if (row.kind === 'compact_summary') {
      history.push({ role: 'user', content: text, summary: true });
      continue;
    }
    if (row.role === 'user') {
      files.sort((a, b) => a.path.localeCompare(b.path));
      history.push({ role: 'user', content: userContent(text, files) });
      continue;
    }
    history.push({
      role: 'assistant',
      content: text,
      ...(tools.length === 0
        ? {}
        : {
            toolCalls: tools.map((t) => ({
              toolCallId: t.toolCallId ?? '',
              toolName: t.toolName ?? '',
              input: t.input,
            })),
          }),
    });
    for (const t of tools) {
      const completed = t.status === 'completed';
      const content = completed
        ? (t.output ?? '')
        : (t.error ?? 'runtime_lost: the call never finished');
      history.push({
        role: 'tool',
        content,
        toolCallId: t.toolCallId ?? '',
        toolName: t.toolName ?? '',
        isError: !completed,
      });
    }
  }
  return history;
}
