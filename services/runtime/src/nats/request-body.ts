import { RuntimeError } from '@agentwire/engine';
import type { z } from 'zod';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a request body at the service boundary (STYLE.md "parse at every boundary"): an
 * empty body is `{}`; malformed JSON or a schema mismatch is `invalid_request` naming the
 * problem.
 */
export function parseRequest<S extends z.ZodType>(schema: S, data: Uint8Array): z.infer<S> {
  let value: unknown = {};
  if (data.length > 0) {
    try {
      value = JSON.parse(decoder.decode(data));
    } catch (cause) {
      throw new RuntimeError(
        'invalid_request',
        `malformed JSON: ${(cause as Error).message}`,
        {},
        { cause },
      );
    }
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new RuntimeError('invalid_request', `invalid request: ${issues.join('; ')}`, { issues });
}
