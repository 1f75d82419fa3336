/** Parsing persistence commands at the worker's boundary. */
import { describeIssues, toContractIssues } from '../issues.ts';
import {
  isPersistenceCommandKind,
  PERSISTENCE_COMMAND_SCHEMAS,
  type PersistenceCommand,
} from './persistence-command.ts';
import { PersistenceCommandParseError } from './persistence-command-parse-error.ts';

/** The outcome of parsing a command: a value, never a throw. */
export type ParsePersistenceCommandResult =
  | { readonly ok: true; readonly command: PersistenceCommand }
  | { readonly ok: false; readonly error: PersistenceCommandParseError };

function fail(message: string, kind: string | undefined, path: string) {
  const error = new PersistenceCommandParseError(message, {
    code: 'unknown_command',
    ...(kind === undefined ? {} : { kind }),
    issues: [{ path, message }],
  });
  return { ok: false, error } as const;
}

/**
 * Parses an unknown value as a persistence command: the kind by name
 * (`unknown_command`), then the command against its kind's schema (`invalid_command`).
 */
export function parsePersistenceCommand(input: unknown): ParsePersistenceCommandResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail('a persistence command must be an object', undefined, '(root)');
  }
  const kind = (input as { kind?: unknown }).kind;
  if (typeof kind !== 'string') return fail('missing command kind', undefined, 'kind');
  if (!isPersistenceCommandKind(kind)) {
    return fail(`unknown command kind ${JSON.stringify(kind)}`, kind, 'kind');
  }
  const result = PERSISTENCE_COMMAND_SCHEMAS[kind].safeParse(input);
  if (result.success) return { ok: true, command: result.data };
  const issues = toContractIssues(result.error.issues);
  const error = new PersistenceCommandParseError(
    `invalid ${kind} command ${describeIssues(issues)}`,
    { code: 'invalid_command', kind, issues, cause: result.error },
  );
  return { ok: false, error };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 JSON bytes (a bus message body) and parses them as a command. */
export function decodePersistenceCommand(bytes: Uint8Array): ParsePersistenceCommandResult {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new PersistenceCommandParseError(`malformed JSON command: ${reason}`, {
      code: 'malformed_json',
      issues: [{ path: '(root)', message: reason }],
      cause,
    });
    return { ok: false, error };
  }
  return parsePersistenceCommand(value);
}
