import { describe, expect, it } from 'vitest';
import { activeChain, treeLeaf, treeParents } from './session-tree.ts';

const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);

describe('session tree (docs/decisions/0239)', () => {
  it('reads rows written before the tree as one chain in transcript order', () => {
    const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    expect([...treeParents(rows)]).toEqual([
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
    ]);
    expect(ids(activeChain(rows))).toEqual(['a', 'b', 'c']);
  });

  it('follows the newest branch after a rewind and keeps the abandoned one reachable', () => {
    const rows = [
      { id: 'm1', treeParentId: null },
      { id: 'm2', treeParentId: 'm1' },
      { id: 'm3', treeParentId: 'm2' },
      { id: 'm4', treeParentId: 'm3' },
      { id: 'n1', treeParentId: 'm2' },
      { id: 'm5', treeParentId: 'n1' },
    ];
    expect(treeLeaf(rows)).toBe('m5');
    expect(ids(activeChain(rows))).toEqual(['m1', 'm2', 'n1', 'm5']);
    expect(ids(activeChain(rows, 'm4'))).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('takes the childless row as the leaf when a newer-sorting row is its parent', () => {
    // Two rows of one millisecond sort by their random ids: the child may sort first.
    const rows = [
      { id: 'p0', treeParentId: null },
      { id: 'n-aaa', treeParentId: 'p-zzz' },
      { id: 'p-zzz', treeParentId: 'p0' },
    ];
    expect(treeLeaf(rows)).toBe('n-aaa');
    expect(ids(activeChain(rows))).toEqual(['p0', 'p-zzz', 'n-aaa']);
  });

  it('joins a new row onto legacy rows and stops at a cycle or a missing parent', () => {
    const mixed = [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd', treeParentId: 'a' }];
    expect(ids(activeChain(mixed))).toEqual(['a', 'd']);
    const cycle = [
      { id: 'x', treeParentId: 'y' },
      { id: 'y', treeParentId: 'x' },
    ];
    expect(ids(activeChain(cycle, 'y'))).toEqual(['x', 'y']);
    expect(ids(activeChain([{ id: 'k', treeParentId: 'gone' }]))).toEqual(['k']);
    expect(activeChain([])).toEqual([]);
  });
});
