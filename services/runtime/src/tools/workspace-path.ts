import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './tool-definition.ts';

/**
 * Resolves `requested` inside `root` and refuses anything outside it (issue 6, item 4):
 * `..` segments, absolute paths elsewhere and symbolic links pointing out are all caught,
 * the last by resolving the nearest existing ancestor with `realpath`.
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<string> {
  if (typeof requested !== 'string' || requested === '') {
    throw new ToolError('invalid_path', 'path must be a non-empty string');
  }
  const realRoot = await realpath(root);
  const target = path.resolve(realRoot, requested);
  assertInside(realRoot, target, requested);
  const real = await realpathOfExistingAncestor(target);
  assertInside(realRoot, real, requested);
  return target;
}

function assertInside(root: string, target: string, requested: string): void {
  const rel = path.relative(root, target);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return;
  throw new ToolError(
    'path_outside_workspace',
    `path ${JSON.stringify(requested)} is outside the workspace root`,
  );
}

async function realpathOfExistingAncestor(target: string): Promise<string> {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return target;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}
