import { createHash } from 'node:crypto';
import { closeSync, constants, openSync } from 'node:fs';
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { BlobStore } from '@agentwire/bus';
import {
  type CheckpointStore,
  type FileWritten,
  ToolError,
  type WorkspaceRewind,
} from '@agentwire/engine';
import { z } from 'zod';
import { type CheckpointUploads, QuietUploads, UploadQueue } from './checkpoint-uploads.ts';
import { readAll, statOrUndefined } from './snapshot-read.ts';
import { resolveInWorkspace } from './workspace-path.ts';

/** Options of {@link createWorkspaceCheckpoints}. */
export interface WorkspaceCheckpointsOptions {
  readonly root: string;
  /** The content-addressed store every runtime instance reads (the prefix's blob bucket). */
  readonly blobs: BlobStore;
  /** Where captures are stored from (default: in order on this thread, into `blobs`). */
  readonly uploads?: CheckpointUploads;
  /** A file larger than this is recorded as not restorable (default 1 MiB). */
  readonly maxFileBytes?: number;
  /** At most this many files in a whole-workspace checkpoint (default 5,000). */
  readonly maxFiles?: number;
}

/** How many bytes of file contents an instance keeps for its own rewinds. */
const CACHE_BYTES = 64 * 1024 * 1024;
/** How many manifests an instance keeps in memory. */
const MANIFESTS = 1_000;
/** Blobs a rewind reads back at once. */
const READS_AT_ONCE = 16;
/** Files read between two yields to the event loop (the reads are synchronous, 0244). */
const FILES_PER_SLICE = 64;

/** Directories a whole-workspace checkpoint does not walk. */
const SKIPPED = new Set(['.git', 'node_modules']);

/**
 * One file's state: its content's SHA-256 (with its mode, read from the file: a state a
 * tool reported has none, and only states read are restored), absent, or recorded as not
 * restorable.
 */
const FileState = z.union([
  z.object({ path: z.string(), digest: z.string(), mode: z.number().int().optional() }),
  z.object({ path: z.string(), absent: z.literal(true) }),
  z.object({ path: z.string(), unrestorable: z.string() }),
]);
type FileState = z.infer<typeof FileState>;

const Manifest = z.object({
  version: z.literal(1),
  /** Every file of the scope; for the whole workspace, a file not listed was absent. */
  scope: z.union([z.literal('workspace'), z.array(z.string())]),
  /** The walk stopped at the file limit: files beyond it were not recorded. */
  truncated: z.boolean(),
  before: z.array(FileState),
  /** What the tool left in the scope (after `settle`). */
  after: z.array(FileState).optional(),
});
type Manifest = z.infer<typeof Manifest>;

const documentName = (sessionId: string, checkpointId: string) =>
  `checkpoint.${sessionId}.${checkpointId}`;

/**
 * Workspace checkpoints in the prefix's blob bucket of the NATS object store
 * (docs/decisions/0225): file contents content-addressed by SHA-256 (stored once however
 * many checkpoints hold them), one manifest per checkpoint. Paths are confined to the root
 * like the tools' (0142); a file over the size limit, a link or a special file is recorded
 * as not restorable, never silently dropped.
 */
export function createWorkspaceCheckpoints(o: WorkspaceCheckpointsOptions): CheckpointStore {
  const maxFileBytes = o.maxFileBytes ?? 1024 * 1024;
  const maxFiles = o.maxFiles ?? 5_000;
  // Uploads run behind the tools, in order (flush() waits for them; 0225, 0244): a capture
  // reads and hashes the files at once, so what it records is what was there before the tool.
  // They wait while the tools run (QuietUploads).
  const uploads = new QuietUploads(o.uploads ?? new UploadQueue(o.blobs));
  // Contents this instance stored or read, by digest (a rewind here reads no blob back),
  // bounded in bytes; digests known to be in the store are not uploaded again.
  const cached = new Map<string, Uint8Array>();
  let cachedBytes = 0;
  const uploaded = new Set<string>();
  const remember = (digest: string, bytes: Uint8Array) => {
    if (cached.has(digest)) return;
    cached.set(digest, bytes);
    cachedBytes += bytes.byteLength;
    for (const [old, b] of cached) {
      if (cachedBytes <= CACHE_BYTES) break;
      cached.delete(old);
      cachedBytes -= b.byteLength;
    }
  };
  // Manifests written here, so a settle or a rewind does not read them back. One rewritten
  // before its upload ran (a settle right after its capture) is uploaded once, as it is then.
  const manifests = new Map<string, Manifest>();
  const keep = (name: string, manifest: Manifest) => {
    manifests.delete(name);
    manifests.set(name, manifest);
    if (manifests.size > MANIFESTS) manifests.delete(manifests.keys().next().value as string);
    uploads.putDocument(name, manifest);
  };

  async function stateOf(relative: string, store: boolean): Promise<FileState> {
    let absolute: string;
    try {
      absolute = (await resolveInWorkspace(o.root, relative)).absolute;
    } catch (err) {
      if (err instanceof ToolError) return { path: relative, unrestorable: err.message };
      throw err;
    }
    // Synchronous reads (0244): a file is at most `maxFileBytes`, and a small one costs a
    // few microseconds this way against tens for each asynchronous call.
    const stat = statOrUndefined(absolute);
    if (stat === undefined) return { path: relative, absent: true };
    if (!stat.isFile()) return { path: relative, unrestorable: 'not a regular file' };
    const overLimit = (size: number) => ({
      path: relative,
      unrestorable: `${size} bytes, over the ${maxFileBytes} limit`,
    });
    if (stat.size > maxFileBytes) return overLimit(stat.size);
    const fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const bytes = readAll(fd, stat.size, maxFileBytes);
      if (bytes.byteLength > maxFileBytes) return overLimit(bytes.byteLength);
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (store) {
        remember(digest, bytes);
        if (!uploaded.has(digest)) {
          uploaded.add(digest);
          uploads.putBytes(bytes);
        }
      }
      return { path: relative, digest, mode: stat.mode & 0o777 };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * {@link stateOf} of each path, in order, yielding to the loop between slices; a path in
   * `known` (a tool's report of what it wrote) is hashed from those bytes, not read.
   */
  async function statesOf(
    paths: readonly string[],
    store: boolean,
    known?: ReadonlyMap<string, Uint8Array>,
  ): Promise<FileState[]> {
    const states: FileState[] = [];
    for (let i = 0; i < paths.length; i += 1) {
      if (i > 0 && i % FILES_PER_SLICE === 0) await yieldToLoop();
      const p = paths[i] as string;
      const bytes = known?.get(p);
      states.push(bytes === undefined ? await stateOf(p, store) : reported(p, bytes));
    }
    return states;
  }

  /** The state of a file a tool reported writing with `bytes` (never stored: an after). */
  function reported(relative: string, bytes: Uint8Array): FileState {
    if (bytes.byteLength > maxFileBytes) {
      return {
        path: relative,
        unrestorable: `${bytes.byteLength} bytes, over the ${maxFileBytes} limit`,
      };
    }
    return { path: relative, digest: createHash('sha256').update(bytes).digest('hex') };
  }

  /** The workspace's files, relative, sorted; `truncated` past the limit. */
  async function walk(): Promise<{ files: string[]; truncated: boolean }> {
    const files: string[] = [];
    const root = (await resolveInWorkspace(o.root, '.')).absolute;
    const visit = async (dir: string): Promise<boolean> => {
      const entries = await readdir(path.join(root, dir), { withFileTypes: true });
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (SKIPPED.has(e.name)) continue;
          if (!(await visit(rel))) return false;
        } else {
          if (files.length >= maxFiles) return false;
          files.push(rel);
        }
      }
      return true;
    };
    const complete = await visit('');
    return { files, truncated: !complete };
  }

  async function record(
    manifest: Manifest,
    store: boolean,
    known?: ReadonlyMap<string, Uint8Array>,
  ): Promise<FileState[]> {
    if (manifest.scope !== 'workspace') return statesOf(manifest.scope, store, known);
    return statesOf((await walk()).files, store);
  }

  async function read(sessionId: string, checkpointId: string): Promise<Manifest | undefined> {
    const name = documentName(sessionId, checkpointId);
    const known = manifests.get(name);
    if (known !== undefined) return known;
    const doc = await o.blobs.getDocument(name);
    const parsed = Manifest.safeParse(doc);
    return parsed.success ? parsed.data : undefined;
  }

  const same = (a: FileState | undefined, b: FileState | undefined) => {
    const absentA = a === undefined || 'absent' in a;
    const absentB = b === undefined || 'absent' in b;
    if (absentA || absentB) return absentA && absentB;
    return 'digest' in a && 'digest' in b && a.digest === b.digest;
  };

  async function capture(
    sessionId: string,
    checkpointId: string,
    scope: readonly string[] | 'workspace',
  ): ReturnType<CheckpointStore['capture']> {
    // Its uploads wait until the tool ends (settle) and the tools are quiet.
    uploads.toolStarted(documentName(sessionId, checkpointId));
    const walked = scope === 'workspace' ? await walk() : undefined;
    const paths = walked?.files ?? [...new Set(scope as readonly string[])];
    const before = await statesOf(paths, true);
    const manifest: Manifest = {
      version: 1,
      scope: scope === 'workspace' ? 'workspace' : paths,
      truncated: walked?.truncated ?? false,
      before,
    };
    keep(documentName(sessionId, checkpointId), manifest);
    const unrestorable = before.flatMap((f) =>
      'unrestorable' in f ? [{ path: f.path, reason: f.unrestorable }] : [],
    );
    if (manifest.truncated) {
      unrestorable.push({
        path: '*',
        reason: `files past the first ${maxFiles} were not recorded`,
      });
    }
    return {
      snapshotRef: `aw-checkpoint:${documentName(sessionId, checkpointId)}`,
      fileCount: before.length,
      unrestorable,
    };
  }

  async function settle(
    sessionId: string,
    checkpointId: string,
    written?: readonly FileWritten[],
  ): Promise<void> {
    const name = documentName(sessionId, checkpointId);
    try {
      const manifest = await read(sessionId, checkpointId);
      if (manifest === undefined) return;
      // What the tool says it wrote is what it left: read back, an edit made since would
      // pass for the tool's and be overwritten by a rewind (0244).
      const known =
        written === undefined ? undefined : new Map(written.map((w) => [w.path, w.bytes]));
      const after = await record(manifest, false, known);
      keep(name, { ...manifest, after });
    } finally {
      uploads.toolEnded(name);
    }
  }

  return {
    capture,
    settle,
    async flush() {
      try {
        await uploads.flush();
      } catch (err) {
        // Which contents failed is not known: every one is uploaded again when met again.
        uploaded.clear();
        throw err;
      }
    },
    async rewind(sessionId, checkpointIds, options): Promise<WorkspaceRewind> {
      const manifests: Manifest[] = [];
      for (const id of checkpointIds) {
        const m = await read(sessionId, id);
        if (m === undefined) {
          return {
            ok: false,
            reason: 'missing',
            files: [],
            message: `checkpoint ${id} has no snapshot`,
          };
        }
        manifests.push(m);
      }
      // Each file goes back to its state before the first checkpoint that covered it; the
      // agent last left it as the last checkpoint covering it recorded after its tool.
      const target = new Map<string, FileState>();
      // undefined: not known (the tool's end was never recorded), so not checked.
      const left = new Map<string, FileState | undefined>();
      for (const m of manifests) {
        const covered = new Set([...m.before, ...(m.after ?? [])].map((f) => f.path));
        for (const p of covered) {
          if (!target.has(p)) {
            // Not listed before a whole-workspace snapshot: the file did not exist yet.
            target.set(p, m.before.find((f) => f.path === p) ?? { path: p, absent: true });
          }
          const after =
            m.after === undefined
              ? undefined
              : (m.after.find((f) => f.path === p) ?? { path: p, absent: true as const });
          left.set(p, after);
        }
      }
      // Each file is read and hashed once for both checks.
      const states = new Map<string, Promise<FileState>>();
      const current = (p: string) => {
        let state = states.get(p);
        if (state === undefined) {
          state = stateOf(p, false);
          states.set(p, state);
        }
        return state;
      };
      const changed: string[] = [];
      await inBatches([...left], READS_AT_ONCE, async ([p, lastLeft]) => {
        if (lastLeft === undefined || 'unrestorable' in lastLeft) return;
        const now = await current(p);
        if ('unrestorable' in now) return;
        if (!same(now, lastLeft)) changed.push(p);
      });
      if (changed.length > 0) {
        return {
          ok: false,
          reason: 'changed',
          files: changed.sort(),
          message: `changed since the agent wrote them, so not overwritten: ${changed.sort().join(', ')}`,
        };
      }
      // What is about to be overwritten, kept for the branch left behind (0239).
      const keepAs = options?.keepAs;
      const kept =
        keepAs === undefined ? undefined : await capture(sessionId, keepAs, [...target.keys()]);
      const restored: string[] = [];
      const removed: string[] = [];
      const unrestorable: string[] = [];
      const sorted = [...target].sort(([a], [b]) => a.localeCompare(b));
      await inBatches(sorted, READS_AT_ONCE, async ([p, state]) => {
        if ('unrestorable' in state) {
          unrestorable.push(p);
          return;
        }
        // A file already as it was is left alone (and not reported as restored).
        if (same(await current(p), state)) return;
        const absolute = (await resolveInWorkspace(o.root, p)).absolute;
        if ('absent' in state) {
          const existed = await lstat(absolute).then(
            () => true,
            () => false,
          );
          if (existed) {
            await rm(absolute, { force: true });
            removed.push(p);
          }
          return;
        }
        const bytes = cached.get(state.digest) ?? (await o.blobs.getBytes(state.digest));
        if (bytes === undefined) {
          unrestorable.push(p);
          return;
        }
        await mkdir(path.dirname(absolute), { recursive: true });
        await writeFile(absolute, bytes, state.mode === undefined ? {} : { mode: state.mode });
        restored.push(p);
      });
      for (const list of [restored, removed, unrestorable]) list.sort();
      if (keepAs !== undefined) await settle(sessionId, keepAs);
      return { ok: true, restored, removed, unrestorable, ...(kept === undefined ? {} : { kept }) };
    },
  };
}

/** Runs `task` on every item, at most `width` at once. */
async function inBatches<T>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
