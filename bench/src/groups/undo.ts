import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BlobStore, connectBus, deleteProvisioned } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import {
  createWorkspaceCheckpoints,
  createWorkspaceTools,
  uploadThread,
} from '@agentwire/runtime/testing';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { median } from '../stats.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const FILES = 1_000;
const FILE_BYTES = 10 * 1024;
const CHANGED = 100;
const CALLS = 50;
/** Five rounds gave single runs 1.15-1.54 apart, twelve 1.22-1.37 (2026-12-07). */
const ROUNDS = 12;

const log = (msg: string) => console.error(`[undo] ${msg}`);

const fileName = (i: number) => `dir${i % 10}/file${i}.txt`;
const content = (i: number, version: string) =>
  `${version} ${i} `.padEnd(FILE_BYTES, String.fromCharCode(97 + (i % 26)));

/**
 * Group `undo` (issue 12, docs/decisions/0225): the runtime's workspace tools and its
 * checkpoint store (the prefix's object store on the local NATS) over a workspace of 1,000
 * files of 10 KiB.
 * - `undo.checkpoint_overhead_ratio`: a `write_file` call with its checkpoint (capture of
 *   the file it names, then settle) over the same call without, rounds alternated; the
 *   tool call alone, without the turn around it, so the most demanding reading. Uploads
 *   run on their own thread, as the runtime runs them (0244);
 *   `undo.checkpoint_overhead_ratio_one_thread` is the same with them on the loop.
 * - `undo.rewind_ms`: a rewind of a whole-workspace checkpoint after 100 files changed,
 *   beside writing those 100 files back from memory (the least a rewind does).
 */
export const undoGroup: BenchGroup = {
  name: 'undo',
  description: 'checkpoint overhead of a write, rewind of 100 changed files among 1,000',
  async run(): Promise<readonly Figure[]> {
    const prefix = `awbu${randomBytes(4).toString('hex')}`;
    const base = await mkdtemp(path.join(tmpdir(), 'aw-bench-undo-'));
    const root = path.join(base, 'ws');
    const bus = await connectBus({ servers: NATS_URL, name: 'bench-undo', noAsyncTraces: true });
    try {
      const blobs = BlobStore.create(bus.nc, names(prefix));
      await blobs.ready();
      for (let d = 0; d < 10; d += 1) await mkdir(path.join(root, `dir${d}`), { recursive: true });
      for (let i = 0; i < FILES; i += 1)
        await writeFile(path.join(root, fileName(i)), content(i, 'v1'));
      const uploads = uploadThread({
        servers: NATS_URL,
        auth: {},
        name: 'bench-undo-uploads',
        prefix,
        replicas: 1,
      });
      const store = createWorkspaceCheckpoints({ root, blobs, uploads });
      const oneThread = createWorkspaceCheckpoints({ root, blobs });
      const write = createWorkspaceTools({ root }).find((t) => t.name === 'write_file');
      if (write === undefined) throw new Error('no write_file tool');
      const signal = new AbortController().signal;
      const plain: number[] = [];
      const checked: number[] = [];
      const checkedOneThread: number[] = [];
      /** Each checkpointed round again, with its uploads waited for (a turn's end does). */
      const durable: number[] = [];
      let n = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const mode of ['plain', 'checked', 'one-thread'] as const) {
          const s = mode === 'one-thread' ? oneThread : store;
          const started = performance.now();
          for (let c = 0; c < CALLS; c += 1) {
            n += 1;
            const file = fileName(n % FILES);
            const input = { path: file, content: content(n, `w${n}`) };
            if (mode !== 'plain') {
              const id = `cp_${n}`;
              await s.capture('bench', id, [file]);
              // The engine's checkpoint hooks around a call, as they run (0244).
              const out = await write.run(input, signal);
              await s.settle('bench', id, out.filesWritten);
            } else {
              await write.run(input, signal);
            }
          }
          const each = (performance.now() - started) / CALLS;
          if (mode === 'plain') plain.push(each);
          else (mode === 'checked' ? checked : checkedOneThread).push(each);
          if (mode !== 'plain') {
            await s.flush();
            if (mode === 'checked') durable.push((performance.now() - started) / CALLS);
          }
        }
      }
      // A whole-workspace checkpoint (a command's), then 100 files changed by checkpointed
      // writes (the agent's), then the rewind to the first, which undoes them all.
      await store.capture('bench-rw', 'cp_all', 'workspace');
      await store.settle('bench-rw', 'cp_all');
      const before = new Map<string, string>();
      const ids = ['cp_all'];
      for (let i = 0; i < CHANGED; i += 1) {
        const file = fileName(i * 10);
        before.set(file, await readFile(path.join(root, file), 'utf8'));
        const id = `cp_change_${i}`;
        ids.push(id);
        await store.capture('bench-rw', id, [file]);
        const out = await write.run({ path: file, content: content(i, 'changed') }, signal);
        await store.settle('bench-rw', id, out.filesWritten);
      }
      const started = performance.now();
      const rewound = await store.rewind('bench-rw', ids);
      const rewindMs = performance.now() - started;
      if (!rewound.ok || rewound.restored.length !== CHANGED) {
        throw new Error(
          `the rewind restored ${rewound.ok ? rewound.restored.length : JSON.stringify(rewound)}`,
        );
      }
      for (const [file, text] of before) {
        if ((await readFile(path.join(root, file), 'utf8')) !== text) {
          throw new Error(`${file} is not as it was`);
        }
      }
      // The raw baseline: the same 100 files written back from memory.
      const rawStarted = performance.now();
      for (const [file, text] of before) await writeFile(path.join(root, file), text);
      const rawMs = performance.now() - rawStarted;
      // The same rewind by another instance (after a takeover): nothing in its memory, every
      // manifest and blob read back from the object store.
      await store.capture('bench-cold', 'cp_all', 'workspace');
      await store.settle('bench-cold', 'cp_all');
      const coldIds = ['cp_all'];
      for (let i = 0; i < CHANGED; i += 1) {
        const file = fileName(i * 10);
        const id = `cp_change_${i}`;
        coldIds.push(id);
        await store.capture('bench-cold', id, [file]);
        const out = await write.run({ path: file, content: content(i, 'changed again') }, signal);
        await store.settle('bench-cold', id, out.filesWritten);
      }
      await store.flush();
      const other = createWorkspaceCheckpoints({
        root,
        blobs: BlobStore.create(bus.nc, names(prefix)),
      });
      const coldStarted = performance.now();
      const cold = await other.rewind('bench-cold', coldIds);
      const coldMs = performance.now() - coldStarted;
      await uploads.close();
      if (!cold.ok || cold.restored.length !== CHANGED) {
        throw new Error(
          `the cold rewind restored ${cold.ok ? cold.restored.length : JSON.stringify(cold)}`,
        );
      }
      log(
        `write_file ${median(plain).toFixed(2)} ms, with its checkpoint ${median(checked).toFixed(2)} ms`,
      );
      return [
        {
          name: 'undo.checkpoint_overhead_ratio',
          value: median(checked) / median(plain),
          unit: 'ratio',
        },
        {
          name: 'undo.checkpoint_overhead_ratio_one_thread',
          value: median(checkedOneThread) / median(plain),
          unit: 'ratio',
        },
        { name: 'undo.write_file_ms', value: median(plain), unit: 'ms' },
        { name: 'undo.write_file_checkpointed_ms', value: median(checked), unit: 'ms' },
        { name: 'undo.rewind_ms', value: rewindMs, unit: 'ms', baseline: rawMs },
        { name: 'undo.rewind_cold_ms', value: coldMs, unit: 'ms', baseline: rawMs },
        {
          name: 'undo.checkpoint_durable_overhead_ratio',
          value: median(durable) / median(plain),
          unit: 'ratio',
        },
      ];
    } finally {
      await deleteProvisioned(bus.jsm, names(prefix));
      await bus.close();
      await rm(base, { recursive: true, force: true });
    }
  },
};
