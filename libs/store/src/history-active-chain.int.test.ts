import {
  type AssistantMessage,
  HistoryMessage,
  type Part,
  type UserMessage,
} from '@agentwire/contracts';
import { activeChain } from '@agentwire/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type HistoryStart, MAX_CHAIN_RUNS, readHistoryPage } from './read-history.ts';
import { ensureSession } from './sessions-repository.ts';
import { truncateAll, useStoreTestContext } from './test-support.ts';

const ctx = useStoreTestContext();

const T0 = 1_700_000_000_000;
const S = 's1';

/**
 * A message to seed: `parent` is its `treeParentId` (`null`: a root), absent on a row written
 * before the tree; `at` its creation time in ms after T0 (default: one second per message).
 */
interface Seed {
  readonly id: string;
  readonly parent?: string | null;
  readonly at?: number;
}

/** A valid message (the samples of `@agentwire/contracts/testing`), user and assistant in turn. */
function messageOf(seed: Seed, i: number, created: number): UserMessage | AssistantMessage {
  const tree = seed.parent === undefined ? {} : { treeParentId: seed.parent };
  if (i % 2 === 0) {
    return { id: seed.id, sessionId: S, role: 'user', time: { created }, agent: 'build', ...tree };
  }
  return {
    id: seed.id,
    sessionId: S,
    role: 'assistant',
    time: { created, completed: created },
    parentId: 'msg-1',
    providerId: 'anthropic',
    modelId: 'claude-x',
    mode: 'build',
    agent: 'build',
    path: { cwd: '/repo', root: '/repo' },
    cost: 0.01,
    tokens: { input: 1200, output: 300, reasoning: 0, cache: { read: 800, write: 0 } },
    ...tree,
  };
}

/** Writes session `s1` (once) and `seeds` as rows, each with one text part. */
async function seed(seeds: readonly Seed[], from = 0): Promise<void> {
  await ensureSession(ctx.db, { id: S, cwd: '/repo', root: '/repo', createdAt: T0 });
  const rows = seeds.map((s, k) => {
    const created = T0 + (s.at ?? (from + k) * 1000);
    const message = messageOf(s, from + k, created);
    const part: Part = {
      id: `${s.id}-p1`,
      sessionId: S,
      messageId: s.id,
      type: 'text',
      text: `text of ${s.id}`,
    };
    // What the query service parses each row back with.
    HistoryMessage.parse({ message, parts: [part] });
    return { created, message, part };
  });
  await ctx.db
    .insertInto('messages')
    .values(
      rows.map(({ created, message }) => ({
        id: message.id,
        session_id: S,
        role: message.role,
        data: JSON.stringify(message),
        version: 1,
        created_at: new Date(created),
      })),
    )
    .execute();
  await ctx.db
    .insertInto('parts')
    .values(
      rows.map(({ part }) => ({
        id: part.id,
        message_id: part.messageId,
        session_id: S,
        type: 'text',
        status: null,
        status_rank: 0,
        data: JSON.stringify(part),
        version: 1,
      })),
    )
    .execute();
}

/** `m1`..`mn`, each naming the one before it (`m1` the root). */
const linear = (n: number): Seed[] =>
  Array.from({ length: n }, (_, i) => ({ id: `m${i + 1}`, parent: i === 0 ? null : `m${i}` }));

async function page(start: HistoryStart, limit: number) {
  const read = await readHistoryPage(ctx.db, S, start, limit);
  if (!read.found) throw new Error(`no page: ${read.reason}`);
  return read;
}

const ids = (p: { messages: { message: { id: string } }[] }) => p.messages.map((m) => m.message.id);

/**
 * Every message id reached paging from the start with `limit`, following `more`, each page
 * along the chain the one before it was read along (docs/decisions/0248).
 */
async function walkForward(limit: number): Promise<string[]> {
  let read = await page({ from: 'start' }, limit);
  const seen = ids(read);
  while (read.more) {
    const last = seen.at(-1);
    if (last === undefined) throw new Error('more without a message');
    read = await page({ pivot: last, direction: 'newer', chain: read.chain ?? undefined }, limit);
    expect(read.messages.length).toBeGreaterThan(0);
    seen.push(...ids(read));
  }
  return seen;
}

/** Every message id reached paging from the end with `limit`, oldest first (as above). */
async function walkBackward(limit: number): Promise<string[]> {
  let read = await page({ from: 'end' }, limit);
  const seen = ids(read);
  while (read.more) {
    const first = seen[0];
    if (first === undefined) throw new Error('more without a message');
    read = await page({ pivot: first, direction: 'older', chain: read.chain ?? undefined }, limit);
    expect(read.messages.length).toBeGreaterThan(0);
    seen.unshift(...ids(read));
  }
  return seen;
}

/**
 * Checks every page of the session against the model: `order` is the transcript order of
 * all its rows, `chain` the ids of the active chain. From both ends and around every row as
 * pivot (on the chain or not), both ways, limits 1 to 3 and 100: the page is the chain's
 * rows beyond the pivot's place in `order`, and `more` says whether more of them follow.
 * Each pivot's pages are read twice: computing the chain, and along the chain the page from
 * the end, or the page before it, reported (0248), which must be there whenever the walk
 * reaches a root.
 */
async function expectPages(
  order: readonly string[],
  chain: readonly string[],
  reachesRoot = true,
): Promise<void> {
  const onChain = order.filter((id) => chain.includes(id));
  expect(onChain).toEqual(chain);
  for (const limit of [1, 2, 3, 100]) {
    expect(await walkForward(limit)).toEqual(chain);
    expect(await walkBackward(limit)).toEqual(chain);
    const fromStart = await page({ from: 'start' }, limit);
    expect(ids(fromStart)).toEqual(chain.slice(0, limit));
    expect(fromStart.more).toBe(chain.length > limit);
    const fromEnd = await page({ from: 'end' }, limit);
    expect(ids(fromEnd)).toEqual(chain.slice(Math.max(0, chain.length - limit)));
    expect(fromEnd.more).toBe(chain.length > limit);
    // The page from the end reports the chain when it computed it or reached a root within
    // one run (0249); else the page before it, which computes it, does.
    const first = ids(fromEnd)[0];
    const reported =
      fromEnd.chain ??
      (fromEnd.more && first !== undefined
        ? (await page({ pivot: first, direction: 'older' }, limit)).chain
        : null);
    if (reachesRoot) expect(chain).toContain(reported?.leaf);
    else expect(reported).toBeNull();
    for (const [at, pivot] of order.entries()) {
      const newer = order.slice(at + 1).filter((id) => chain.includes(id));
      const older = order.slice(0, at).filter((id) => chain.includes(id));
      for (const along of [undefined, reported ?? undefined]) {
        const how = `limit ${limit}, ${along === undefined ? 'computed' : 'along the given chain'}`;
        const n = await page({ pivot, direction: 'newer', chain: along }, limit);
        expect(ids(n), `newer than ${pivot}, ${how}`).toEqual(newer.slice(0, limit));
        expect(n.more).toBe(newer.length > limit);
        const o = await page({ pivot, direction: 'older', chain: along }, limit);
        expect(ids(o), `older than ${pivot}, ${how}`).toEqual(
          older.slice(Math.max(0, older.length - limit)),
        );
        expect(o.more).toBe(older.length > limit);
      }
    }
  }
}

describe('readHistoryPage along the active chain (docs/decisions/0239)', () => {
  it('reads a session written before the tree as before: every row, ties broken by id', async () => {
    // Three rows share a millisecond; inserted out of id order.
    await seed([
      { id: 'a', at: 0 },
      { id: 'd', at: 5 },
      { id: 'b', at: 5 },
      { id: 'c', at: 5 },
      { id: 'e', at: 9 },
      { id: 'f', at: 12 },
    ]);
    const order = ['a', 'b', 'c', 'd', 'e', 'f'];
    await expectPages(order, order);
    const all = await page({ from: 'start' }, 100);
    expect(all.messages.map((m) => m.parts.map((p) => p.id))).toEqual(
      order.map((id) => [`${id}-p1`]),
    );
    expect(all.lastSequence).toBe(0);
  });

  it('hides the branch a rewind abandoned: m1,m2,m7,m8', async () => {
    await seed([...linear(6), { id: 'm7', parent: 'm2' }, { id: 'm8', parent: 'm7' }]);
    const order = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'];
    expect(ids(await page({ from: 'end' }, 100))).toEqual(['m1', 'm2', 'm7', 'm8']);
    await expectPages(order, ['m1', 'm2', 'm7', 'm8']);
  });

  it('pages around a pivot on the abandoned branch by its place in the order', async () => {
    await seed([...linear(6), { id: 'm7', parent: 'm2' }, { id: 'm8', parent: 'm7' }]);
    const newer = await page({ pivot: 'm4', direction: 'newer' }, 1);
    expect([ids(newer), newer.more]).toEqual([['m7'], true]);
    const older = await page({ pivot: 'm4', direction: 'older' }, 5);
    expect([ids(older), older.more]).toEqual([['m1', 'm2'], false]);
    expect(await readHistoryPage(ctx.db, S, { pivot: 'nope', direction: 'older' }, 5)).toEqual({
      found: false,
      reason: 'no_pivot',
    });
  });

  it('follows a new row whose parent is a row written before the tree', async () => {
    await seed([{ id: 'l1' }, { id: 'l2' }, { id: 'l3' }, { id: 'l4' }]);
    await seed(
      [
        { id: 'n1', parent: 'l2' },
        { id: 'n2', parent: 'n1' },
      ],
      4,
    );
    await expectPages(['l1', 'l2', 'l3', 'l4', 'n1', 'n2'], ['l1', 'l2', 'n1', 'n2']);
    // The usual upgrade: the first new row names the last old one; the session stays whole.
    await truncateAll(ctx.db);
    await seed([{ id: 'l1' }, { id: 'l2' }, { id: 'n1', parent: 'l2' }, { id: 'n2' }]);
    await expectPages(['l1', 'l2', 'n1', 'n2'], ['l1', 'l2', 'n1', 'n2']);
  });

  it('navigates back to an abandoned leaf: a row after m6 makes the chain m1..m6,m9', async () => {
    await seed([...linear(6), { id: 'm7', parent: 'm2' }, { id: 'm8', parent: 'm7' }]);
    await seed([{ id: 'm9', parent: 'm6' }], 8);
    const order = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9'];
    expect(ids(await page({ from: 'end' }, 100))).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
      'm9',
    ]);
    await expectPages(order, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm9']);
  });

  it('keeps a child written in its parent’s millisecond with a smaller id', async () => {
    // The newest row by (created_at, id) is `u`, but `a` follows it: `a` is the leaf.
    await seed([
      { id: 'r', parent: null, at: 0 },
      { id: 'u', parent: 'r', at: 7 },
      { id: 'a', parent: 'u', at: 7 },
    ]);
    await expectPages(['r', 'a', 'u'], ['r', 'a', 'u']);
  });

  it('stops at a parent outside the session and at a cycle', async () => {
    await seed([
      { id: 'm1', parent: null },
      { id: 'm2', parent: 'm3' },
      { id: 'm3', parent: 'm2' },
      { id: 'm4', parent: 'm3' },
    ]);
    await expectPages(['m1', 'm2', 'm3', 'm4'], ['m2', 'm3', 'm4'], false);
    await truncateAll(ctx.db);
    await seed([{ id: 'm1', parent: null }, { id: 'm2', parent: 'elsewhere' }, { id: 'm3' }]);
    await expectPages(['m1', 'm2', 'm3'], ['m2', 'm3'], false);
  });

  it('reads along a given chain only while its leaf is the leaf (0248)', async () => {
    await seed(linear(6));
    const before = await page({ pivot: 'm5', direction: 'older' }, 2);
    expect(before.chain).toEqual({ leaf: 'm6', runs: [['m1', 'm6']] });
    const along = { pivot: 'm5', direction: 'older', chain: before.chain ?? undefined } as const;
    expect(ids(await page(along, 2))).toEqual(['m3', 'm4']);
    // A rewind to m2: its notice m7 is the new leaf, and the old chain is not used.
    await seed([{ id: 'm7', parent: 'm2' }], 6);
    const after = await page(along, 2);
    expect([ids(after), after.more]).toEqual([['m1', 'm2'], false]);
    expect(after.chain).toEqual({
      leaf: 'm7',
      runs: [
        ['m7', 'm7'],
        ['m1', 'm2'],
      ],
    });
    // Past the chain's end the given chain finds nothing, and the page is computed again.
    const end = await page({ pivot: 'm1', direction: 'older', chain: after.chain ?? undefined }, 2);
    expect([ids(end), end.more, end.chain]).toEqual([[], false, null]);
  });

  it('reads the page from the end back from the leaf while it is one run (0249)', async () => {
    await seed(linear(6));
    // Within one run, no pass over the session: no chain to report unless a root is reached.
    const newest = await page({ from: 'end' }, 2);
    expect([ids(newest), newest.more, newest.chain]).toEqual([['m5', 'm6'], true, null]);
    const whole = await page({ from: 'end' }, 6);
    expect([ids(whole), whole.more, whole.chain]).toEqual([
      ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'],
      false,
      { leaf: 'm6', runs: [['m1', 'm6']] },
    ]);
    // A rewind to m2 puts a branch point among the newest rows: the chain is computed.
    await seed([{ id: 'm7', parent: 'm2' }, { id: 'm8' }], 6);
    const after = await page({ from: 'end' }, 3);
    expect([ids(after), after.more]).toEqual([['m2', 'm7', 'm8'], true]);
    expect(after.chain).toEqual({
      leaf: 'm8',
      runs: [
        ['m7', 'm8'],
        ['m1', 'm2'],
      ],
    });
  });

  it(`reports no chain to reuse when it has more than ${MAX_CHAIN_RUNS} runs`, async () => {
    // c1..cn each follow the one before, with a root x_i between: every c_i starts a run.
    const zigzag = (n: number): Seed[] => [
      { id: 'c00', parent: null },
      ...Array.from({ length: n }, (_, i) => [
        { id: `x${String(i + 1).padStart(2, '0')}`, parent: null },
        { id: `c${String(i + 1).padStart(2, '0')}`, parent: `c${String(i).padStart(2, '0')}` },
      ]).flat(),
    ];
    const order = (n: number) => zigzag(n).map((s) => s.id);
    const chainOf = (n: number) => order(n).filter((id) => id.startsWith('c'));
    await seed(zigzag(MAX_CHAIN_RUNS - 1));
    const fits = await page({ from: 'end' }, 3);
    expect(fits.chain?.runs).toHaveLength(MAX_CHAIN_RUNS);
    await expectPages(order(MAX_CHAIN_RUNS - 1), chainOf(MAX_CHAIN_RUNS - 1));
    await truncateAll(ctx.db);
    await seed(zigzag(MAX_CHAIN_RUNS));
    expect((await page({ from: 'end' }, 3)).chain).toBeNull();
    expect(await walkBackward(3)).toEqual(chainOf(MAX_CHAIN_RUNS));
  });

  it('lists no message of a session without messages', async () => {
    await ensureSession(ctx.db, { id: S, cwd: '/repo', root: '/repo', createdAt: T0 });
    expect(await page({ from: 'end' }, 10)).toMatchObject({ messages: [], more: false });
  });

  it('lists the chain that activeChain of @agentwire/domain finds, for any tree', async () => {
    // Each row: legacy, a root, or the child of an earlier row; times with ties.
    const row = fc.record({
      link: fc.oneof(fc.constant<'legacy'>('legacy'), fc.constant(null), fc.nat()),
      tick: fc.nat({ max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 12 }), async (rows) => {
        await truncateAll(ctx.db);
        let at = 0;
        const seeds: Seed[] = rows.map(({ link, tick }, i) => {
          at += tick;
          const id = `m${String(rows.length - i).padStart(2, '0')}`;
          if (link === 'legacy') return { id, at };
          if (link === null || i === 0) return { id, parent: null, at };
          return { id, parent: `m${String(rows.length - (link % i)).padStart(2, '0')}`, at };
        });
        await seed(seeds);
        const order = [...seeds]
          .sort((x, y) => (x.at ?? 0) - (y.at ?? 0) || (x.id < y.id ? -1 : 1))
          .map((s) => ({ id: s.id, treeParentId: s.parent }));
        const expected = activeChain(order).map((r) => r.id);
        const chain = order.map((r) => r.id).filter((id) => expected.includes(id));
        expect(await walkForward(2)).toEqual(chain);
        expect(await walkBackward(3)).toEqual(chain);
      }),
      { numRuns: 60 },
    );
  });
});
