import { setTimeout as holdFor } from 'node:timers/promises';
import { type BusConnection, connectBus, followSession, lastSessionSequence } from '@agentwire/bus';
import { duplicateNumbers, readSessionMessages } from '@agentwire/bus/testing';
import { type Names, names as namesOf, SessionProjection } from '@agentwire/contracts';
import { openSse, type SseConnection } from '@agentwire/gateway/testing';
import { type RuntimeReply, WireDriver } from '@agentwire/runtime/testing';
import { createDatabase } from '@agentwire/store';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { ALL_FAULTS, type FaultKind, type SoakStack, startSoakStack } from './soak-stack.ts';

/**
 * The chaos soak (`pnpm soak`, docs/decisions/0251): the system run from outside at load,
 * with faults, and what it acknowledged counted against what it holds. Not part of
 * `npm test` (minutes long, and it saturates the machine on purpose).
 *
 * Settings: `SOAK_SESSIONS` (30), `SOAK_MS` (150,000: how long load and faults run),
 * `SOAK_FAULT_MS` (3,000: mean pause between faults), `SOAK_SSE` (6: sessions with a browser tab), `SOAK_FAULTS` (comma-separated
 * {@link FaultKind}s; all by default), `SOAK_LOGS` (a directory for every process's log).
 */
const SESSIONS = Number(process.env.SOAK_SESSIONS ?? 30);
const LOAD_MS = Number(process.env.SOAK_MS ?? 150_000);
const FAULT_MS = Number(process.env.SOAK_FAULT_MS ?? 3_000);
const FAULTS = (process.env.SOAK_FAULTS?.split(',') as FaultKind[] | undefined) ?? ALL_FAULTS;
/** Sessions that also have a browser tab on the gateway (`SOAK_SSE`, 6). */
const SSE_SESSIONS = Number(process.env.SOAK_SSE ?? 6);

/** Codes a frontend retries (the same `inputId` is taken once). */
const RETRYABLE = new Set([
  'lease_conflict',
  'takeover_failed',
  'session_broken',
  'unknown_session',
  'unavailable',
  'write_not_confirmed',
]);

let stack: SoakStack | undefined;
let bus: BusConnection | undefined;

afterAll(async () => {
  if (stack !== undefined && process.env.SOAK_LOGS) await stack.saveLogs(process.env.SOAK_LOGS);
  await bus?.close();
  await stack?.stop();
});

/** What the frontends were told was accepted. */
interface Acked {
  readonly sessionId: string;
  readonly text: string;
  /** `ok`, or the code of the answer that said it was taken before. */
  readonly answer: string;
}

/** Tallies of every answer that was not `ok`, by operation and code. */
const refusals = new Map<string, number>();
const tally = (key: string) => refusals.set(key, (refusals.get(key) ?? 0) + 1);

/** Sends until answered `ok` (or `duplicate_input`: taken before), as a frontend retries. */
async function untilOk(
  what: string,
  send: () => Promise<RuntimeReply>,
): Promise<RuntimeReply | undefined> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    try {
      const reply = await send();
      if (reply.ok) return reply;
      tally(`${what}: ${reply.error.code}`);
      if (reply.error.code === 'duplicate_input') return reply;
      if (!RETRYABLE.has(reply.error.code)) return undefined;
    } catch (err) {
      tally(`${what}: ${err instanceof Error ? err.name : 'error'}`);
    }
    await holdFor(300 + Math.random() * 700);
  }
  tally(`${what}: gave up`);
  return undefined;
}

/** One session's frontend: prompts at a human pace, two renames, a follower that allows. */
async function sessionLoop(
  client: WireDriver,
  k: number,
  until: number,
  acked: Map<string, Acked>,
  renames: Map<string, string>,
  followerEnds: string[],
  tabs: Map<string, ReturnType<typeof sseFollower>>,
  gatewayUrl: string,
): Promise<string | undefined> {
  const opened = await untilOk('open', () => client.open());
  if (opened === undefined || !opened.ok) return undefined;
  const sid = String(opened.sessionId);
  const follow = client.follow(sid, 0, { answer: 'allow' });
  if (k < SSE_SESSIONS) tabs.set(sid, sseFollower(gatewayUrl, sid));
  for (let i = 1; Date.now() < until; i += 1) {
    if (i === 3 || i === 7) {
      const title = `renamed ${k}.${i}`;
      if (await untilOk('rename', () => client.op(sid, 'rename', { title }, 10_000))) {
        renames.set(sid, title);
      }
      continue;
    }
    const text = `${i % 4 === 0 ? '[scenario:two_tools] ' : ''}soak ${k} #${i}`;
    const inputId = `in-${k}-${i}`;
    const body = { text, inputId };
    const reply = await untilOk('prompt', () => client.op(sid, 'prompt', body, 10_000));
    if (reply !== undefined) {
      acked.set(inputId, { sessionId: sid, text, answer: reply.ok ? 'ok' : reply.error.code });
    }
    await holdFor(200 + Math.random() * 1_500);
  }
  await follow.stop().catch((err: unknown) => followerEnds.push(`${sid}: ${String(err)}`));
  return sid;
}

/**
 * A browser tab on the gateway: an event stream that reconnects after its last number each
 * time the gateway goes away, noting every number it was shown and every frame that was not
 * events (a snapshot here means the gateway thought the base expired).
 */
function sseFollower(gatewayUrl: string, sid: string) {
  const seen: number[] = [];
  const unusual: string[] = [];
  let stopped = false;
  let current: SseConnection | undefined;
  const last = () => seen.at(-1) ?? 0;
  const done = (async () => {
    while (!stopped) {
      try {
        current = await openSse(`${gatewayUrl}/sessions/${sid}/events?after=${last()}`);
        if (current.status !== 200) unusual.push(`status ${current.status}`);
        let read = 0;
        const pump = () => {
          const readings = current?.readings ?? [];
          for (; read < readings.length; read += 1) {
            const r = readings[read];
            if (r?.kind === 'events') seen.push(...r.events.map((e) => e.sequenceNumber));
            else if (r !== undefined && r.kind !== 'dropped') unusual.push(r.kind);
          }
        };
        const ticker = setInterval(pump, 50);
        await current.ended.catch(() => undefined);
        clearInterval(ticker);
        pump();
      } catch {
        // The gateway is down: try again.
      }
      if (!stopped) await holdFor(300);
    }
  })();
  return {
    seen,
    unusual,
    last,
    async stop() {
      stopped = true;
      current?.abort();
      await done;
    },
  };
}

/** Each retained message's number, `Aw-Prev-Seq` and stream position, headers only. */
async function chainOf(b: BusConnection, n: Names, sid: string) {
  const consumer = await b.js.consumers.get(n.eventsStream, {
    filter_subjects: n.sessionFilter(sid),
    headers_only: true,
  });
  const chain: { seq: number; prev: number | undefined }[] = [];
  try {
    for (;;) {
      const m = await consumer.next({ expires: 2_000 });
      if (m === null) break;
      const seq = Number(m.headers?.get('Aw-Seq') || 0);
      const prev = m.headers?.get('Aw-Prev-Seq');
      if (seq > 0) chain.push({ seq, prev: prev ? Number(prev) : undefined });
      if (m.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return chain;
}

/** What is wrong with one session after the soak, as sentences. */
async function sessionProblems(
  b: BusConnection,
  n: Names,
  db: ReturnType<typeof createDatabase>,
  sid: string,
  rename: string | undefined,
): Promise<string[]> {
  const problems: string[] = [];
  const duplicates = [...duplicateNumbers(await readSessionMessages(b.js, n, sid)).keys()];
  if (duplicates.length > 0) problems.push(`numbers stored twice: ${duplicates.slice(0, 5)}`);
  const chain = await chainOf(b, n, sid);
  const held = new Set(chain.map((c) => c.seq));
  if (chain.some((c, i) => i > 0 && c.seq <= (chain[i - 1]?.seq ?? 0)))
    problems.push('numbers out of stream order');
  const broken = chain.filter((c) => (c.prev ?? 0) > 0 && !held.has(c.prev ?? 0));
  if (broken.length > 0) problems.push(`Aw-Prev-Seq names missing events: ${broken[0]?.prev}`);
  const last = (await lastSessionSequence(b.jsm, n, sid))?.sequenceNumber ?? 0;
  let seen = 0;
  const follower = followSession(b.js, n, sid, { afterSequence: 0 });
  try {
    for await (const e of follower) {
      seen += 1;
      if (e.sequenceNumber >= last) break;
    }
  } catch (err) {
    problems.push(`a follower from 0 failed: ${String(err)}`);
  }
  await follower.stop();
  if (seen !== chain.length) problems.push(`a follower saw ${seen} of ${chain.length}`);
  const row = await db
    .selectFrom('sessions')
    .select(['last_sequence', 'title'])
    .where('id', '=', sid)
    .executeTakeFirst();
  if (Number(row?.last_sequence) !== last)
    problems.push(`sessions.last_sequence ${row?.last_sequence}, the stream's last ${last}`);
  const projected = await db
    .selectFrom('session_projections')
    .select(['projection', 'last_sequence'])
    .where('session_id', '=', sid)
    .executeTakeFirst();
  if (Number(projected?.last_sequence) !== last)
    problems.push(`the projection is at ${projected?.last_sequence}, the stream at ${last}`);
  if (rename !== undefined) {
    if (row?.title !== rename) problems.push(`stored title ${row?.title}, renamed ${rename}`);
    const title = projected && SessionProjection.parse(projected.projection).title;
    if (title !== rename) problems.push(`projected title ${title}, renamed ${rename}`);
  }
  return problems.map((p) => `${sid}: ${p}`);
}

/**
 * What a browser tab missed or was shown twice: every number it was shown once and in
 * order, every retained one among them (transient ones it saw live may be evicted since).
 */
async function tabProblems(
  b: BusConnection,
  n: Names,
  sid: string,
  tab: ReturnType<typeof sseFollower>,
): Promise<string[]> {
  const last = (await lastSessionSequence(b.jsm, n, sid))?.sequenceNumber ?? 0;
  const deadline = Date.now() + 60_000;
  while (tab.last() < last && Date.now() < deadline) await holdFor(200);
  await tab.stop();
  const problems: string[] = [];
  if (tab.last() < last) problems.push(`the tab is at ${tab.last()}, the stream at ${last}`);
  const twice = tab.seen.filter((s, i) => i > 0 && s <= (tab.seen[i - 1] ?? 0));
  if (twice.length > 0)
    problems.push(`the tab was shown ${twice.length} numbers again: ${twice.slice(0, 5)}`);
  const shown = new Set(tab.seen);
  const missed = (await chainOf(b, n, sid)).filter((c) => !shown.has(c.seq));
  if (missed.length > 0)
    problems.push(`the tab missed ${missed.length}: ${missed.slice(0, 5).map((c) => c.seq)}`);
  if (tab.unusual.length > 0) problems.push(`the tab got ${tab.unusual.slice(0, 5)}`);
  return problems.map((p) => `${sid} (tab): ${p}`);
}

/** The events of `sid` that name `inputId`, as `number:type`, for a problem's report. */
async function streamOf(b: BusConnection, n: Names, sid: string, inputId: string) {
  const messages = await readSessionMessages(b.js, n, sid);
  const naming = messages.flatMap((m) =>
    m.event !== undefined && JSON.stringify(m.event.payload).includes(`"${inputId}"`)
      ? [`${m.event.sequenceNumber}:${m.event.type}`]
      : [],
  );
  return naming.length === 0 ? 'nothing' : naming.join(' ');
}

/** Every acknowledged prompt: a terminal ledger row; in the transcript once when promoted. */
async function inputProblems(
  db: ReturnType<typeof createDatabase>,
  acked: ReadonlyMap<string, Acked>,
): Promise<string[]> {
  const rows = await db.selectFrom('session_inputs').select(['id', 'status']).execute();
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const texts = await sql<{ text: string; n: number }>`
    select p.data->>'text' as text, count(*)::int as n
    from parts p join messages m on m.id = p.message_id
    where m.role = 'user' and p.type = 'text' group by 1`.execute(db);
  const inTranscript = new Map(texts.rows.map((r) => [r.text, r.n]));
  const problems: string[] = [];
  for (const [inputId, { text, answer }] of acked) {
    const s = status.get(inputId);
    const copies = inTranscript.get(text) ?? 0;
    if (s === undefined) problems.push(`${inputId}: acknowledged (${answer}), no ledger row`);
    else if (s === 'admitted') problems.push(`${inputId}: still admitted`);
    if (copies > 1) problems.push(`${inputId}: in the transcript ${copies} times`);
    if (s === 'promoted' && copies !== 1) problems.push(`${inputId}: promoted, ${copies} copies`);
  }
  return problems;
}

it('chaos soak: faults at load lose nothing acknowledged, crash nothing, and every view agrees', async () => {
  stack = await startSoakStack({ leaseTtlMs: 6_000, hogs: 2 });
  bus = await connectBus({ servers: stack.nats.url, name: 'soak' });
  const n = namesOf(stack.env.prefix);
  const client = new WireDriver(bus, n);
  const acked = new Map<string, Acked>();
  const renames = new Map<string, string>();
  const followerEnds: string[] = [];
  const tabs = new Map<string, ReturnType<typeof sseFollower>>();
  const gatewayUrl = stack.gatewayUrl;
  const until = Date.now() + LOAD_MS;

  const chaos = (async () => {
    await holdFor(5_000);
    while (Date.now() < until - 5_000) {
      await stack.injectFault(FAULTS);
      await holdFor(FAULT_MS * (0.5 + Math.random()));
    }
  })();
  const sids = await Promise.all(
    Array.from({ length: SESSIONS }, (_, k) =>
      sessionLoop(client, k, until, acked, renames, followerEnds, tabs, gatewayUrl),
    ),
  );
  await chaos;
  stack.quiet();
  // Every frontend comes back once, as a person reopens a session: a session whose owner a
  // fault killed, with inputs queued, is resumed now, and its leftovers end (R14.2). Nobody
  // touched it since, so until now it had no owner to end them.
  for (const sid of sids) {
    if (sid !== undefined) await untilOk('reopen', () => client.open(sid));
  }
  console.error(`[soak] faults:\n${stack.faults.join('\n')}`);
  console.error(
    `[soak] ${acked.size} prompts acknowledged; refusals ${JSON.stringify([...refusals])}`,
  );

  const db = createDatabase(stack.env.databaseUrl, { poolSize: 2 });
  try {
    // The workers catch up: every acknowledged input leaves `admitted`.
    const deadline = Date.now() + 120_000;
    let problems = await inputProblems(db, acked);
    while (problems.length > 0 && Date.now() < deadline) {
      await holdFor(2_000);
      problems = await inputProblems(db, acked);
    }
    for (const sid of sids) {
      if (sid !== undefined)
        problems.push(...(await sessionProblems(bus, n, db, sid, renames.get(sid))));
    }
    for (const [sid, tab] of tabs) problems.push(...(await tabProblems(bus, n, sid, tab)));
    for (const [inputId, a] of acked) {
      if (problems.some((p) => p.startsWith(`${inputId}:`))) {
        problems.push(
          `${inputId}: the stream says ${await streamOf(bus, n, a.sessionId, inputId)}`,
        );
      }
    }
    console.error(`[soak] problems: ${problems.length}\n${problems.slice(0, 40).join('\n')}`);
    expect(stack.crashes).toEqual([]);
    expect(followerEnds).toEqual([]);
    expect(problems).toEqual([]);
    expect(acked.size).toBeGreaterThan(SESSIONS);
  } finally {
    await db.destroy();
  }
}, 900_000);
