import type {
  CommandContext,
  InputFile,
  PromptInput,
  SessionFeature,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** At most this many files per prompt. */
const MAX_FILES = 16;
/** At most this many bytes of referenced files per prompt, all files together. */
const MAX_TOTAL_BYTES = 512 * 1024;
/** Longest reference taken. */
const MAX_REFERENCE = 1_024;

/**
 * One `@` reference in a prompt's text.
 *
 * @internal Exported for its tests.
 */
export interface FileReference {
  /** The path as written, quotes removed. */
  readonly path: string;
  /** Quoted (`@"a b.txt"`) or with a `/` or a `.`: meant as a file, so it must resolve. */
  readonly explicit: boolean;
}

/**
 * The `@file` references of a prompt (R7.3, R12.1): an `@` at the start or after white
 * space, then a path up to the next white space, or a quoted path (`@"with spaces.md"`).
 * Trailing sentence punctuation is not part of the path (`see @README.md.`). An `@` inside
 * a word (`a@b.c`) or alone is plain text. A quote left open is malformed.
 *
 * @internal Exported for its tests.
 */
export function findFileReferences(text: string): FileReference[] {
  const found: FileReference[] = [];
  const at = /(^|\s)@(?=\S)/g;
  for (let m = at.exec(text); m !== null; m = at.exec(text)) {
    const start = m.index + m[0].length;
    if (text[start] === '"') {
      const end = text.indexOf('"', start + 1);
      if (end < 0) throw malformed(text.slice(start - 1, start + 40), 'the quote is not closed');
      const path = text.slice(start + 1, end);
      if (path === '') throw malformed('@""', 'the quoted path is empty');
      found.push(checked({ path, explicit: true }));
      at.lastIndex = end + 1;
      continue;
    }
    const word = /^\S+/.exec(text.slice(start))?.[0] ?? '';
    const path = word.replace(/[.,;:!?)\]}'"]+$/, '');
    if (path === '') continue;
    found.push(checked({ path, explicit: /[/.]/.test(path) }));
  }
  return found;
}

function checked(ref: FileReference): FileReference {
  if (ref.path.length > MAX_REFERENCE) {
    throw malformed(`@${ref.path.slice(0, 40)}…`, `a path is at most ${MAX_REFERENCE} characters`);
  }
  if (ref.path.includes('\0')) throw malformed(`@${ref.path}`, 'a path holds no NUL character');
  return ref;
}

function malformed(reference: string, why: string): RuntimeError {
  return new RuntimeError(
    'invalid_file_reference',
    `malformed file reference ${reference}: ${why}`,
    {
      reference,
      reason: 'malformed',
    },
  );
}

/**
 * R7.3: each `@file` reference of a prompt becomes a file part of its user message, read
 * from the workspace (confined to its root, symbolic links included). A reference meant as
 * a file that does not resolve is refused with `invalid_file_reference` naming it and why;
 * a bare `@name` that is no file is plain text (a mention, not a path).
 */
async function expandPrompt(input: PromptInput, ctx: CommandContext): Promise<PromptInput> {
  const refs = findFileReferences(input.text);
  if (refs.length === 0) return input;
  if (ctx.workspace === undefined) {
    const [first] = refs.filter((r) => r.explicit);
    if (first === undefined) return input;
    throw new RuntimeError(
      'invalid_file_reference',
      `@${first.path}: this session has no workspace to read files from`,
      { reference: `@${first.path}`, reason: 'no_workspace' },
    );
  }
  const files = new Map<string, InputFile>(input.files.map((f) => [f.path, f]));
  for (const ref of refs) {
    const read = await ctx.workspace.readFile(ref.path);
    if (!read.ok) {
      if (!ref.explicit && read.reason === 'not_found') continue;
      throw new RuntimeError('invalid_file_reference', `@${ref.path}: ${read.message}`, {
        reference: `@${ref.path}`,
        reason: read.reason,
      });
    }
    files.set(read.file.path, read.file);
  }
  const sorted = [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
  if (sorted.length > MAX_FILES) {
    throw new RuntimeError(
      'invalid_file_reference',
      `a prompt refers to at most ${MAX_FILES} files; this one refers to ${sorted.length}`,
      { reference: `@${sorted[MAX_FILES]?.path ?? ''}`, reason: 'too_many' },
    );
  }
  const total = sorted.reduce((n, f) => n + f.bytes, 0);
  if (total > MAX_TOTAL_BYTES) {
    throw new RuntimeError(
      'invalid_file_reference',
      `the referenced files hold ${total} bytes; a prompt takes at most ${MAX_TOTAL_BYTES}`,
      { reference: `@${sorted.at(-1)?.path ?? ''}`, reason: 'too_large' },
    );
  }
  return { text: input.text, files: sorted };
}

/** `@file` references expanded into file parts (R7.3, R12.1). */
export const fileReferences: SessionFeature = { name: 'file-references', expandPrompt };
