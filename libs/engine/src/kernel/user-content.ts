import type { InputFile } from './feature.ts';

/**
 * What the model reads of a user message: its text, then each referenced file in a
 * `<file path="...">` block, in path order. Cold recovery rebuilds the same string from the
 * message's text and file parts (R10.4), so a recovered session's next request extends the
 * one before it (docs/decisions/0161).
 */
export function userContent(text: string, files: readonly InputFile[]): string {
  if (files.length === 0) return text;
  return [text, ...files.map((f) => `<file path="${f.path}">\n${f.text}\n</file>`)].join('\n\n');
}

/** A file's text as the `data:` URL of its file part (R7.2: `url` may be a `data:` URL). */
export function fileDataUrl(file: Pick<InputFile, 'mime' | 'text'>): string {
  const bytes = new TextEncoder().encode(file.text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return `data:${file.mime};charset=utf-8;base64,${btoa(binary)}`;
}

/** The text of a file part's `data:` URL written by {@link fileDataUrl}; undefined otherwise. */
export function fileDataText(url: string): string | undefined {
  const m = /^data:[^,;]+;charset=utf-8;base64,(.*)$/s.exec(url);
  if (m === null) return undefined;
  const binary = atob(m[1] ?? '');
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
