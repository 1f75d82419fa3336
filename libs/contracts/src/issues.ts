/**
 * Turning zod issues into the contract's readable issue list, shared by the event and the
 * persistence-command parsers (R4.1: type, failing path and reason).
 */
import type { z } from 'zod';

/** One failed check: a dotted path (`payload.messages[0].role`) and the reason. */
export interface ContractIssue {
  readonly path: string;
  readonly message: string;
}

/** Formats a zod path as `a.b[0].c`; the empty path reads `(root)`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

const PREFIX = /^Invalid (input|option|string|value|number|element|key): /;

function reasonOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union' && issue.message === 'Invalid input') {
    return 'expected a JSON value or one of the allowed shapes';
  }
  return issue.message.replace(PREFIX, '');
}

/** Converts zod issues, prefixing each path with `prefix` (e.g. `['payload']`). */
export function toContractIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): ContractIssue[] {
  return issues.map((issue) => ({
    path: formatPath([...prefix, ...issue.path]),
    message: reasonOf(issue),
  }));
}

/** Joins issues as `at <path>: <reason>; at <path>: <reason>`. */
export function describeIssues(issues: readonly ContractIssue[]): string {
  return issues.map((i) => `at ${i.path}: ${i.message}`).join('; ');
}
