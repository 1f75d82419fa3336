import type { SessionEvent } from '@agentwire/contracts';
import type { RuntimeReply } from '@agentwire/runtime/testing';
import {
  type EventWatcher,
  type RuntimeStack,
  startRuntimeStack,
  watchEvents,
} from '@agentwire/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  askedForTitle,
  projectedTitles,
  settle,
  storedTitles,
  type TitleState,
  titleErrors,
  titleEvents,
} from './title-race-kit.ts';

const runtimeEnv = {
  AW_TITLE_GENERATION: 'on',
  AW_TITLE_REQUEST_TIMEOUT_MS: '60000',
  AW_CONFIRM_TIMEOUT_MS: '30000',
  // Residency is not under test here: keep every session of the file resident.
  AW_RESIDENT_TARGET: '1000',
  AW_RESIDENT_HIGH_WATER: '1000',
};

/**
 * When a session's rename is sent, relative to its first prompt: before it (answered
 * first), together with it, once an event of the title's life is on the wire, or a few
 * milliseconds after the prompt was admitted (the range the issue reproduced).
 */
type RenameAt =
  | { readonly kind: 'before' }
  | { readonly kind: 'together' }
  | {
      readonly kind: 'after_event';
      readonly what: string;
      readonly seen: (e: SessionEvent) => boolean;
    }
  | { readonly kind: 'after_ms'; readonly ms: number };

const isTitle = (source: string) => (e: SessionEvent) =>
  e.type === 'session_title_updated' && e.payload.source === source;
const isTitleQuery = (type: 'model_request' | 'model_complete') => (e: SessionEvent) =>
  e.type === type && e.payload.querySource === 'session_title';

/** Spreads 100 renames from before the prompt to after the generated title. */
function renameAt(i: number): RenameAt {
  switch (i % 10) {
    case 0:
      return { kind: 'before' };
    case 1:
      return { kind: 'together' };
    case 2:
      return { kind: 'after_event', what: 'first_input title', seen: isTitle('first_input') };
    case 3:
      return { kind: 'after_event', what: 'title request', seen: isTitleQuery('model_request') };
    case 4:
      return { kind: 'after_event', what: 'title answer', seen: isTitleQuery('model_complete') };
    case 5:
      return { kind: 'after_event', what: 'generated title', seen: isTitle('generated') };
    default:
      return { kind: 'after_ms', ms: (i * 7) % 61 };
  }
}

interface Raced {
  readonly sid: string;
  readonly at: RenameAt;
  readonly rename: RuntimeReply;
  readonly prompt: RuntimeReply;
}

/**
 * Opens `count` fresh sessions, a few at a time: a burst of opens is not under test (each
 * cold-loads from Postgres through the runtime's small pool).
 */
async function openSessions(stack: RuntimeStack, count: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < count) {
    const batch = Math.min(8, count - ids.length);
    const opened = await Promise.all(Array.from({ length: batch }, () => stack.client.open()));
    for (const o of opened) {
      if (!o.ok) throw new Error(o.error.message);
      ids.push(String(o.sessionId));
    }
  }
  return ids;
}

/** One session: its first prompt and its rename, sent as `at` says. */
async function race(
  stack: RuntimeStack,
  watcher: EventWatcher,
  sid: string,
  i: number,
): Promise<Raced> {
  const at = renameAt(i);
  const prompt = () =>
    stack.client.op(sid, 'prompt', { text: `please look into the flaky login number ${i}` });
  const rename = () => stack.client.op(sid, 'rename', { title: `mine ${i}` });
  switch (at.kind) {
    case 'before': {
      const renamed = await rename();
      return { sid, at, rename: renamed, prompt: await prompt() };
    }
    case 'together': {
      const [renamed, prompted] = await Promise.all([rename(), prompt()]);
      return { sid, at, rename: renamed, prompt: prompted };
    }
    case 'after_event': {
      const prompted = await prompt();
      // A failed title job never shows its later events: rename then, the checks report it.
      await watcher.waitFor(
        sid,
        at.what,
        (events) => events.some(at.seen) || titleErrors(events).length > 0,
      );
      return { sid, at, rename: await rename(), prompt: prompted };
    }
    case 'after_ms': {
      const prompted = await prompt();
      await new Promise((resolve) => setTimeout(resolve, at.ms));
      return { sid, at, rename: await rename(), prompt: prompted };
    }
    default: {
      const never: never = at;
      return never;
    }
  }
}

/** What the system holds for one session after it settled. */
interface Outcome {
  readonly events: readonly SessionEvent[];
  readonly row: TitleState | undefined;
  /** Absent when the stack runs no projection. */
  readonly projected?: TitleState | undefined;
}

const same = (a: TitleState | undefined, b: TitleState | undefined) =>
  a?.title === b?.title && a?.source === b?.source;

/** The checks of issue 17 on one raced session; returns what is wrong, or nothing. */
function problemsOf(r: Raced, i: number, o: Outcome): string[] {
  const problems: string[] = [];
  const mine = { title: `mine ${i}`, source: 'custom' };
  if (!r.rename.ok) problems.push(`rename refused: ${JSON.stringify(r.rename)}`);
  if (!r.prompt.ok) problems.push(`prompt refused: ${JSON.stringify(r.prompt)}`);
  const titles = titleEvents(o.events);
  if (!same(o.row, mine)) problems.push(`stored ${JSON.stringify(o.row)}`);
  if (!same(titles.at(-1), mine))
    problems.push(`last title event ${JSON.stringify(titles.at(-1))}`);
  if ('projected' in o && !same(o.projected, mine)) {
    problems.push(`projected ${JSON.stringify(o.projected)}`);
  }
  const firstCustom = titles.findIndex((t) => t.source === 'custom');
  if (firstCustom >= 0 && titles.slice(firstCustom + 1).some((t) => t.source !== 'custom')) {
    problems.push(`an automatic title after the rename: ${JSON.stringify(titles)}`);
  }
  if (r.at.kind === 'before') {
    // R9.5: a session born with a custom title never becomes first_input, nor asks.
    if (titles.length !== 1)
      problems.push(`titles of a session renamed first: ${JSON.stringify(titles)}`);
    if (askedForTitle(o.events)) problems.push('asked for a title over a custom one');
  }
  return problems;
}

async function raceMany(stack: RuntimeStack, count: number): Promise<void> {
  const watcher = await watchEvents(stack.bus, stack.names);
  try {
    const sessions = await openSessions(stack, count);
    const raced = await Promise.all(sessions.map((sid, i) => race(stack, watcher, sid, i)));
    const ids = raced.map((r) => r.sid);
    await settle(stack, watcher, ids);
    const rows = await storedTitles(stack, ids);
    const projected =
      stack.projection !== undefined ? await projectedTitles(stack, ids) : undefined;
    const problems = raced.flatMap((r, i) =>
      problemsOf(r, i, {
        events: watcher.events(r.sid),
        row: rows.get(r.sid),
        ...(projected === undefined ? {} : { projected: projected.get(r.sid) }),
      }).map(
        (p) =>
          `session ${i} (${r.at.kind}${r.at.kind === 'after_ms' ? ` ${r.at.ms} ms` : ''}): ${p}`,
      ),
    );
    expect(problems).toEqual([]);
  } finally {
    await watcher.stop();
  }
}

let stack: RuntimeStack;

beforeAll(async () => {
  stack = await startRuntimeStack(
    { name: 'title-race-e2e', runtimeEnv, titleSidecar: true, projection: true },
    ['race-a'],
  );
});

afterAll(async () => {
  await stack?.stop();
});

// The tests run in order on one stack: the second and third after it has grown to two
// workers, two sidecars and two runtimes (starting a second stack costs more than the test).
describe('a rename wins everywhere (issue 17; R9.3, R9.5, R16.5)', () => {
  it('one worker and one sidecar: 100 renames from before the prompt to after the generated title, and the rename is the title in Postgres, on the wire and in the projection', async () => {
    await raceMany(stack, 100);
  }, 180_000);

  it('two workers, two sidecars, two runtimes: the same 100 races, the same outcome', async () => {
    await Promise.all([stack.startWorker(), stack.startSidecar(), stack.startRuntime('race-b')]);
    expect([stack.workers.length, stack.sidecars.length, stack.runtimes.size]).toEqual([2, 2, 2]);
    await raceMany(stack, 100);
  }, 180_000);

  it('200 fresh sessions prompted at once: every eligible one gets its generated title (R9.5)', async () => {
    const s = stack;
    const watcher = await watchEvents(s.bus, s.names);
    try {
      const inputs = Array.from({ length: 200 }, (_, i) =>
        i % 10 === 9 ? `fix ${i}` : `please explain the retry policy of upload ${i}`,
      );
      const ids = await openSessions(s, inputs.length);
      await Promise.all(
        ids.map(async (sid, i) => {
          const reply = await s.client.op(sid, 'prompt', { text: inputs[i] });
          if (!reply.ok) throw new Error(`prompt refused: ${JSON.stringify(reply)}`);
        }),
      );
      await settle(s, watcher, ids);
      const rows = await storedTitles(s, ids);
      const projected = await projectedTitles(s, ids);
      const problems = ids.flatMap((sid, i) => {
        const events = watcher.events(sid);
        const eligible = i % 10 !== 9;
        const last = titleEvents(events).at(-1);
        const row = rows.get(sid);
        const found: string[] = [];
        if (!same(row, last) || !same(projected.get(sid), last)) {
          const seen = { stored: row, projected: projected.get(sid), wire: last };
          found.push(`disagree: ${JSON.stringify(seen)}`);
        }
        if (row?.source !== (eligible ? 'generated' : 'first_input')) {
          found.push(`source ${row?.source}`);
        }
        if (titleErrors(events).length > 0) found.push(JSON.stringify(titleErrors(events)));
        return found.map((p) => `session ${i}: ${p}`);
      });
      expect(problems).toEqual([]);
      const sidecarLines = s.sidecars.flatMap((p) => p.lines);
      expect(sidecarLines.filter((l) => l.includes('no persisted session'))).toEqual([]);
    } finally {
      await watcher.stop();
    }
  }, 180_000);
});
