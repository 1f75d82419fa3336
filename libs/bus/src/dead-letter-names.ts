import type { Names } from '@agentwire/contracts';

/**
 * Name of the stream that keeps dead letters (`<PREFIX>_DLQ`), derived from the prefix like
 * the other stream names of `names()`.
 */
export function deadLetterStream(n: Names): string {
  return `${n.prefix.toUpperCase().replaceAll('-', '_')}_DLQ`;
}

/** Filter matching every dead-letter subject (`<prefix>.dlq.>`). */
export function deadLetterFilter(n: Names): string {
  return `${n.prefix}.dlq.>`;
}
