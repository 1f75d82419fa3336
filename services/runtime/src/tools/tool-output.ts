import { ToolError, type ToolOutput } from '@agentwire/engine';
import type { z } from 'zod';

/** Parses a tool's input; a mismatch is an `invalid_input` tool error naming each field. */
export function parseToolInput<T>(schema: z.ZodType<T>, input: unknown, tool: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ToolError(
    'invalid_input',
    `${tool}: ${result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
  );
}

/**
 * `text` cut to `max` bytes (R7.5's serialisation facts); `originalBytes` overrides the
 * size when `text` is already a cut of a larger output.
 */
export function cappedOutput(
  text: string,
  max: number,
  extra: { readonly filesRead?: string[]; readonly originalBytes?: number } = {},
): ToolOutput {
  const bytes = Buffer.from(text, 'utf8');
  const original = Math.max(extra.originalBytes ?? 0, bytes.length);
  const content = bytes.length > max ? bytes.subarray(0, max).toString('utf8') : text;
  const out = {
    content,
    truncated: original > Buffer.byteLength(content),
    originalBytes: original,
    returnedBytes: Buffer.byteLength(content),
  };
  return extra.filesRead === undefined ? out : { ...out, filesRead: extra.filesRead };
}
