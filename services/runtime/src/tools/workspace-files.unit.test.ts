import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkspaceFiles } from '@agentwire/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceFiles } from './workspace-files.ts';

let base: string;
let files: WorkspaceFiles;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'aw-files-'));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await mkdir(path.join(root, '.agentwire', 'prompts'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret\n');
  await writeFile(path.join(root, 'docs', 'guide.md'), '# Guide\n');
  await writeFile(path.join(root, 'binary.bin'), Buffer.from([0x89, 0x50, 0x00, 0xff]));
  await writeFile(path.join(root, 'big.txt'), 'x'.repeat(2_000));
  await writeFile(path.join(root, '.agentwire', 'prompts', 'review.md'), 'Review $ARGUMENTS');
  await writeFile(path.join(root, '.agentwire', 'prompts', 'notes.txt'), 'not a template');
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'to-secret'));
  await symlink(outside, path.join(root, 'to-outside'));
  await symlink(outside, path.join(root, '.agentwire', 'prompts', 'escape.md'));
  files = createWorkspaceFiles({ root, maxFileBytes: 1_024 });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('the workspace as @file references and templates read it (R12.1)', () => {
  it('reads a text file with its relative path, mime and size', async () => {
    expect(await files.readFile('docs/guide.md')).toEqual({
      ok: true,
      file: { path: 'docs/guide.md', mime: 'text/markdown', text: '# Guide\n', bytes: 8 },
    });
  });

  it.each([
    ['../outside/secret.txt', 'outside_workspace'],
    ['/etc/passwd', 'outside_workspace'],
    ['to-secret', 'outside_workspace'],
    ['to-outside/secret.txt', 'outside_workspace'],
    ['missing.md', 'not_found'],
    ['docs', 'not_a_file'],
    ['binary.bin', 'not_text'],
    ['big.txt', 'too_large'],
  ])('refuses %s as %s', async (requested, reason) => {
    const read = await files.readFile(requested);
    expect(read).toMatchObject({ ok: false, reason });
  });

  it('lists and reads the .md templates, none through a link out', async () => {
    expect(await files.listPromptTemplates()).toEqual(['review']);
    expect(await files.readPromptTemplate('review')).toBe('Review $ARGUMENTS');
    expect(await files.readPromptTemplate('escape')).toBeUndefined();
    expect(await files.readPromptTemplate('../../to-secret')).toBeUndefined();
    expect(await files.readPromptTemplate('missing')).toBeUndefined();
  });
});
