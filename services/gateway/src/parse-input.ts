import type { z } from 'zod';
import { errorBody, type HttpErrorBody } from './http-error.ts';

/** A parsed input, or the 400 body naming each field that was wrong. */
export type ParsedInput<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly body: HttpErrorBody };

/**
 * Parses one part of a request (`body`, `params`, `query`, `headers`) with a zod schema
 * (STYLE.md "parse at every boundary"). The error names the part and the path of each
 * issue, e.g. `body.text: expected string, received number`.
 */
export function parseInput<S extends z.ZodType>(
  part: string,
  schema: S,
  value: unknown,
): ParsedInput<z.infer<S>> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  return {
    ok: false,
    body: errorBody(
      'invalid_request',
      `invalid ${part}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      { issues },
    ),
  };
}
