import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '@agentwire/engine';

/** A path inside the workspace with every symbolic link resolved. */
export interface WorkspacePath {
  /** The real absolute path: open this one, not the requested one. */
  readonly absolute: string;
  /** Relative to the workspace's real root (`.` for the root itself). */
  readonly relative: string;
}

/** Links followed in one resolution before it counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Resolves `requested` inside `root` and refuses anything outside it (issue 6 item 4,
 * issue 15): `..` segments, absolute paths elsewhere, and symbolic links anywhere on the
 * path that point out, dangling ones included (a write through a dangling link would
 * create its target). The answer is the fully resolved path, so the caller opens no link
 * it did not check (docs/decisions/0142). The lookups are synchronous: each is one system
 * call on a local directory, a few microseconds, where the thread pool's round trip of an
 * asynchronous one costs tens (docs/decisions/0244).
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<WorkspacePath> {
  if (typeof requested !== 'string' || requested === '') {
    throw new ToolError('invalid_path', 'path must be a non-empty string');
  }
  const realRoot = realpathSync.native(root);
  const target = path.resolve(realRoot, requested);
  assertInside(realRoot, target, `path ${JSON.stringify(requested)} is outside the workspace root`);
  const real = resolveLinks(target, requested);
  assertInside(
    realRoot,
    real,
    `path ${JSON.stringify(requested)} goes through a symbolic link to ${real}, outside the workspace root`,
  );
  return { absolute: real, relative: path.relative(realRoot, real) || '.' };
}

function assertInside(root: string, target: string, message: string): void {
  const rel = path.relative(root, target);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return;
  throw new ToolError('path_outside_workspace', message);
}

/**
 * `realpath` of the longest existing prefix, the rest appended; a dangling link on the way
 * is followed by hand (realpath fails on it) and the resolution starts over from its target.
 */
function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function resolveLinks(target: string, requested: string): string {
  let current = target;
  let rest: string[] = [];
  for (let links = 0; links <= MAX_LINKS; ) {
    try {
      return path.join(realpathSync.native(current), ...rest.reverse());
    } catch {
      const link = isLink(current);
      if (link) {
        const to = path.resolve(path.dirname(current), readlinkSync(current));
        current = path.join(to, ...rest.reverse());
        rest = [];
        links += 1;
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) return target;
      rest.push(path.basename(current));
      current = parent;
    }
  }
  throw new ToolError(
    'path_link_loop',
    `path ${JSON.stringify(requested)} has too many symbolic links`,
  );
}
