import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolDefinition } from '@agentwire/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceTools } from './workspace-tools.ts';

let base: string;
let root: string;
let outside: string;
let tools: Map<string, ToolDefinition>;
const signal = new AbortController().signal;
const run = (tool: string, input: unknown) => {
  const def = tools.get(tool);
  if (!def) throw new Error(`no tool ${tool}`);
  return def.run(input, signal);
};

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'aw-tools-'));
  root = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret\n');
  await writeFile(path.join(root, 'sub', 'inner.txt'), 'inner\n');
  // Links inside the workspace: out of it (file, directory, dangling), and within it.
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'to-secret'));
  await symlink(outside, path.join(root, 'to-outside'));
  await symlink(path.join(outside, 'planted.txt'), path.join(root, 'dangling-out'));
  await symlink('../sub/inner.txt', path.join(root, 'sub', 'self-link'));
  await symlink('../to-outside', path.join(root, 'sub', 'chained'));
  tools = new Map(createWorkspaceTools({ root }).map((t) => [t.name, t]));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const escapes: [string, unknown][] = [
  ['read_file', { path: 'to-secret' }],
  ['read_file', { path: 'to-outside/secret.txt' }],
  ['read_file', { path: 'sub/chained/secret.txt' }],
  ['list_dir', { path: 'to-outside' }],
  ['list_dir', { path: 'sub/chained' }],
  ['write_file', { path: 'to-secret', content: 'overwritten' }],
  ['write_file', { path: 'to-outside/new.txt', content: 'x' }],
  ['write_file', { path: 'dangling-out', content: 'planted' }],
  ['write_file', { path: 'sub/chained/deep/new.txt', content: 'x' }],
];

describe('workspace tools and symbolic links (issue 15)', () => {
  it.each(escapes)('%s %j through a link out of the workspace is refused', async (tool, input) => {
    await expect(run(tool, input)).rejects.toMatchObject({
      name: 'ToolError',
      code: 'path_outside_workspace',
      message: expect.stringContaining('symbolic link'),
    });
  });

  it('changed nothing outside the workspace', async () => {
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'deep'))).toBe(false);
  });

  it('follows links that stay inside, and reports the real relative path read', async () => {
    const read = await run('read_file', { path: 'sub/self-link' });
    expect(read).toMatchObject({ content: 'inner\n', filesRead: [path.join('sub', 'inner.txt')] });
    const wrote = await run('write_file', { path: 'sub/new.txt', content: 'finé' });
    expect(await readFile(path.join(root, 'sub', 'new.txt'), 'utf8')).toBe('finé');
    // What it left, for the call's checkpoint (0244): the bytes on disk, named as asked.
    expect(wrote.filesWritten?.map((w) => [w.path, Buffer.from(w.bytes).toString()])).toEqual([
      ['sub/new.txt', 'finé'],
    ]);
  });

  it('refuses .. and absolute paths elsewhere as before', async () => {
    await expect(run('read_file', { path: '../outside/secret.txt' })).rejects.toMatchObject({
      code: 'path_outside_workspace',
    });
    await expect(run('list_dir', { path: outside })).rejects.toMatchObject({
      code: 'path_outside_workspace',
    });
  });

  it('refuses a link loop with its own code', async () => {
    await symlink('loop-b', path.join(root, 'loop-a'));
    await symlink('loop-a', path.join(root, 'loop-b'));
    await expect(run('write_file', { path: 'loop-a', content: 'x' })).rejects.toMatchObject({
      code: 'path_link_loop',
    });
  });
});
