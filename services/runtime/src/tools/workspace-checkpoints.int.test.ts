import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BlobStore, type BusConnection, connectBus } from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import type { CheckpointStore } from '@agentwire/engine';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uploadThread } from './checkpoint-upload-worker.ts';
import type { CheckpointUploads } from './checkpoint-uploads.ts';
import { createWorkspaceCheckpoints } from './workspace-checkpoints.ts';

let env: TestEnvironment;
let bus: BusConnection;
let base: string;
let root: string;
let store: CheckpointStore;
let sharedBlobs: BlobStore;
let uploads: CheckpointUploads;
let sid = 's0';
let n = 0;

/** A hash of every file's path and bytes under the root: equal trees hash equal. */
async function treeHash(): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string) => {
    for (const e of (await readdir(path.join(root, dir), { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) await walk(rel);
      else hash.update(`${rel}\0`).update(await readFile(path.join(root, rel)));
    }
  };
  await walk('');
  return hash.digest('hex');
}

beforeAll(async () => {
  env = await createTestEnvironment();
  bus = await connectBus({ servers: env.natsUrl, name: 'checkpoints-int' });
  const names = namesOf(env.prefix);
  const blobs = BlobStore.create(bus.nc, names);
  await blobs.ready();
  base = await mkdtemp(path.join(tmpdir(), 'aw-cp-'));
  root = path.join(base, 'ws');
  // Uploads on their own thread and connection, as the runtime runs them (0244).
  uploads = uploadThread({
    servers: env.natsUrl,
    auth: {},
    name: 'checkpoints-int-uploads',
    prefix: env.prefix,
    replicas: 1,
  });
  store = createWorkspaceCheckpoints({ root, blobs, uploads, maxFileBytes: 4_096, maxFiles: 50 });
  sharedBlobs = BlobStore.create(bus.nc, names);
});

beforeEach(async () => {
  await rm(root, { recursive: true, force: true });
  await mkdir(path.join(root, 'src'), { recursive: true });
  await writeFile(path.join(root, 'src', 'a.txt'), 'a1\n');
  await writeFile(path.join(root, 'b.bin'), Buffer.from([0, 1, 2, 255]));
  n += 1;
  sid = `s${n}`;
});

afterAll(async () => {
  await uploads.close();
  await bus.jsm.streams.delete(`OBJ_${env.prefix}_blobs`).catch(() => undefined);
  await bus.close();
  await rm(base, { recursive: true, force: true });
  await env.dispose();
});

/** A tool run between a checkpoint and its settle. */
async function tool(id: string, scope: readonly string[] | 'workspace', act: () => Promise<void>) {
  const captured = await store.capture(sid, id, scope);
  await act();
  await store.settle(sid, id);
  return captured;
}

describe('workspace checkpoints in the object store (docs/decisions/0225)', () => {
  it('puts the workspace back byte for byte: edits undone, created files deleted, deleted ones back', async () => {
    const start = await treeHash();
    const first = await tool('cp1', ['src/a.txt'], () =>
      writeFile(path.join(root, 'src/a.txt'), 'a2\n'),
    );
    expect(first).toMatchObject({ fileCount: 1, unrestorable: [] });
    await tool('cp2', 'workspace', async () => {
      await rm(path.join(root, 'b.bin'));
      await mkdir(path.join(root, 'new/deep'), { recursive: true });
      await writeFile(path.join(root, 'new/deep/c.txt'), 'c\n');
    });
    await tool('cp3', ['d.txt'], () => writeFile(path.join(root, 'd.txt'), 'd\n'));
    expect(await treeHash()).not.toBe(start);
    const rewound = await store.rewind(sid, ['cp1', 'cp2', 'cp3']);
    expect(rewound).toEqual({
      ok: true,
      restored: ['b.bin', 'src/a.txt'],
      removed: ['d.txt', 'new/deep/c.txt'],
      unrestorable: [],
    });
    await rm(path.join(root, 'new'), { recursive: true });
    expect(await treeHash()).toBe(start);
  });

  it('is in the shared store once flushed: another instance, with nothing in memory, rewinds', async () => {
    await tool('cp1', ['src/a.txt'], () => writeFile(path.join(root, 'src/a.txt'), 'a2\n'));
    await tool('cp2', ['d.txt'], () => writeFile(path.join(root, 'd.txt'), 'd\n'));
    await store.flush();
    const other = createWorkspaceCheckpoints({ root, blobs: sharedBlobs });
    expect(await other.rewind(sid, ['cp1', 'cp2'])).toEqual({
      ok: true,
      restored: ['src/a.txt'],
      removed: ['d.txt'],
      unrestorable: [],
    });
    expect(await readFile(path.join(root, 'src/a.txt'), 'utf8')).toBe('a1\n');
  });

  it('rewinds to a later checkpoint only what came after it', async () => {
    await tool('cp1', ['src/a.txt'], () => writeFile(path.join(root, 'src/a.txt'), 'a2\n'));
    await tool('cp2', ['src/a.txt'], () => writeFile(path.join(root, 'src/a.txt'), 'a3\n'));
    expect(await store.rewind(sid, ['cp2'])).toMatchObject({ ok: true, restored: ['src/a.txt'] });
    expect(await readFile(path.join(root, 'src/a.txt'), 'utf8')).toBe('a2\n');
  });

  it('does not overwrite a file someone else changed since the agent wrote it', async () => {
    await tool('cp1', ['src/a.txt'], () => writeFile(path.join(root, 'src/a.txt'), 'agent\n'));
    await writeFile(path.join(root, 'src/a.txt'), 'the user\n');
    const refused = await store.rewind(sid, ['cp1']);
    expect(refused).toMatchObject({ ok: false, reason: 'changed', files: ['src/a.txt'] });
    expect(await readFile(path.join(root, 'src/a.txt'), 'utf8')).toBe('the user\n');
  });

  it('takes what a tool reports writing as what it left, so an edit made before the settle is kept', async () => {
    const file = path.join(root, 'src/a.txt');
    await store.capture(sid, 'cp1', ['src/a.txt']);
    await writeFile(file, 'agent\n');
    // The user saves between the tool's write and its settle: read back, that edit would
    // pass for the agent's and the rewind would overwrite it.
    await writeFile(file, 'the user\n');
    await store.settle(sid, 'cp1', [{ path: 'src/a.txt', bytes: Buffer.from('agent\n') }]);
    expect(await store.rewind(sid, ['cp1'])).toMatchObject({
      ok: false,
      reason: 'changed',
      files: ['src/a.txt'],
    });
    expect(await readFile(file, 'utf8')).toBe('the user\n');
    // Once the file holds what the tool reported again, the rewind goes through.
    await writeFile(file, 'agent\n');
    expect(await store.rewind(sid, ['cp1'])).toMatchObject({ ok: true, restored: ['src/a.txt'] });
    expect(await readFile(file, 'utf8')).toBe('a1\n');
  });

  it('records a file over the limit, a link out and a path outside as not restorable', async () => {
    await writeFile(path.join(root, 'big.txt'), 'x'.repeat(5_000));
    await symlink('/etc/hostname', path.join(root, 'link'));
    const captured = await store.capture(sid, 'cp1', ['big.txt', 'link', '../escape.txt']);
    expect(captured.unrestorable.map((u) => u.path)).toEqual(['big.txt', 'link', '../escape.txt']);
    expect(captured.unrestorable[0]?.reason).toMatch(/over the 4096 limit/);
    const rewound = await store.rewind(sid, ['cp1']);
    expect(rewound).toMatchObject({ ok: true, unrestorable: ['../escape.txt', 'big.txt', 'link'] });
  });

  it('records a FIFO and a directory as not restorable at once, never waiting on the FIFO', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const captured = await store.capture(sid, 'cp1', ['pipe', 'src', 'src/a.txt']);
    expect(captured.unrestorable).toEqual([
      { path: 'pipe', reason: 'not a regular file' },
      { path: 'src', reason: 'not a regular file' },
    ]);
    await store.settle(sid, 'cp1');
  });

  it('refuses to rewind to a checkpoint it holds no snapshot of', async () => {
    expect(await store.rewind(sid, ['never'])).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('notes when a whole-workspace checkpoint stopped at the file limit', async () => {
    for (let i = 0; i < 60; i += 1) await writeFile(path.join(root, `f${i}.txt`), `${i}`);
    const captured = await store.capture(sid, 'cp1', 'workspace');
    expect(captured.fileCount).toBe(50);
    expect(captured.unrestorable.at(-1)).toMatchObject({ path: '*' });
  });
});
