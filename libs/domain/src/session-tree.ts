/**
 * The session as a tree (docs/decisions/0239): each message names the one before it on its
 * branch (`treeParentId`); a row written before the tree names none and follows the
 * message before it in the transcript's order (R7.8). The current leaf is the newest
 * message no other message follows; the active chain is the leaf and its ancestors.
 */

/** One message of the tree, in the transcript's order (`created_at`, then `id`). */
export interface TreeRow {
  readonly id: string;
  /** The parent it names: `null` at the root, `undefined` on a row written before the tree. */
  readonly treeParentId?: string | null | undefined;
}

/** Each row's parent, by id (`null` at a root), with the legacy rule applied. */
export function treeParents(rows: readonly TreeRow[]): Map<string, string | null> {
  const parents = new Map<string, string | null>();
  for (let i = 0; i < rows.length; i += 1) {
    const row = rows[i] as TreeRow;
    const named = row.treeParentId;
    parents.set(row.id, named !== undefined ? named : (rows[i - 1]?.id ?? null));
  }
  return parents;
}

/** The current leaf: the newest row that is nobody's parent; undefined without rows. */
export function treeLeaf(
  rows: readonly TreeRow[],
  parents: ReadonlyMap<string, string | null> = treeParents(rows),
): string | undefined {
  const followed = new Set<string>();
  for (const p of parents.values()) if (p !== null) followed.add(p);
  for (let i = rows.length - 1; i >= 0; i -= 1) {
    const id = (rows[i] as TreeRow).id;
    if (!followed.has(id)) return id;
  }
  return rows.at(-1)?.id;
}

/**
 * The chain that ends at `leafId` (the current leaf when absent), root first: the rows
 * found walking the parents back. The walk stops at a root, at a parent not among `rows`,
 * or where it would meet a row twice (a cycle, which only a foreign transcript can hold).
 */
export function activeChain<T extends TreeRow>(rows: readonly T[], leafId?: string): T[] {
  const parents = treeParents(rows);
  const byId = new Map<string, T>();
  for (const row of rows) byId.set(row.id, row);
  const chain: T[] = [];
  const seen = new Set<string>();
  let at: string | null | undefined = leafId ?? treeLeaf(rows, parents);
  while (at != null && !seen.has(at)) {
    const row = byId.get(at);
    if (row === undefined) break;
    seen.add(at);
    chain.push(row);
    at = parents.get(at);
  }
  return chain.reverse();
}
