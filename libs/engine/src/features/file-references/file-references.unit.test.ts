import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import { memoryWorkspace } from '../../testing/memory-workspace.ts';
import { fileReferences, findFileReferences } from './file-references.ts';

function ctx(files: Record<string, string>, withWorkspace = true): CommandContext {
  return {
    sessionId: 's1',
    workspace: withWorkspace ? memoryWorkspace(new Map(Object.entries(files))) : undefined,
    commands: async () => [],
    status: () => {
      throw new Error('not used');
    },
    rename: async () => {},
    idle: () => true,
  };
}

const expand = (text: string, c: CommandContext) =>
  fileReferences.expandPrompt?.({ text, files: [] }, c) ?? Promise.reject(new Error('none'));

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RuntimeError)) throw new Error(`expected a RuntimeError, got ${err}`);
  return err;
}

describe('@file references (R7.3, R12.1)', () => {
  it('finds references at word starts, quoted ones, and strips sentence punctuation', () => {
    expect(
      findFileReferences('see @src/a.ts, and @"docs/my notes.md". Mail a@b.c or @bob; @ alone'),
    ).toEqual([
      { path: 'src/a.ts', explicit: true },
      { path: 'docs/my notes.md', explicit: true },
      { path: 'bob', explicit: false },
    ]);
    expect(findFileReferences('@README.md.')).toEqual([{ path: 'README.md', explicit: true }]);
  });

  it('refuses a quote left open and an empty quoted path as malformed', () => {
    expect(() => findFileReferences('look at @"half open')).toThrow(/quote is not closed/);
    expect(() => findFileReferences('look at @"" here')).toThrow(/quoted path is empty/);
  });

  it('turns each distinct file into one part, sorted by path, and keeps the text', async () => {
    const c = ctx({ 'b.md': 'bee', 'a.txt': 'ay' });
    const out = await expand('compare @b.md with @a.txt and @b.md again', c);
    expect(out.text).toBe('compare @b.md with @a.txt and @b.md again');
    expect(out.files.map((f) => [f.path, f.text, f.bytes])).toEqual([
      ['a.txt', 'ay', 2],
      ['b.md', 'bee', 3],
    ]);
  });

  it('leaves a bare @name that is no file as text, but refuses a path that is not there', async () => {
    const c = ctx({ 'a.txt': 'ay' });
    expect((await expand('thanks @bob', c)).files).toEqual([]);
    const err = await refusal(expand('read @missing.md', c));
    expect(err.code).toBe('invalid_file_reference');
    expect(err.detail).toEqual({ reference: '@missing.md', reason: 'not_found' });
  });

  it('refuses a path outside the workspace, naming the reference', async () => {
    const err = await refusal(expand('read @../etc/passwd now', ctx({})));
    expect(err.detail).toEqual({ reference: '@../etc/passwd', reason: 'outside_workspace' });
    expect(err.message).toContain('@../etc/passwd');
  });

  it('refuses a file reference in a session without a workspace', async () => {
    const err = await refusal(expand('read @a.txt', ctx({}, false)));
    expect(err.detail).toMatchObject({ reason: 'no_workspace' });
    expect((await expand('hi @bob', ctx({}, false))).files).toEqual([]);
  });

  it('refuses more files, or more bytes, than a prompt takes', async () => {
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}.txt`, 'x']));
    const refs = Object.keys(many)
      .map((k) => `@${k}`)
      .join(' ');
    expect((await refusal(expand(refs, ctx(many)))).detail).toMatchObject({ reason: 'too_many' });
    const big = { 'a.txt': 'x'.repeat(300 * 1024), 'b.txt': 'y'.repeat(300 * 1024) };
    expect((await refusal(expand('@a.txt @b.txt', ctx(big)))).detail).toMatchObject({
      reason: 'too_large',
    });
  });
});
