import {
  type BusConnection,
  connectBus,
  deadLetterStream,
  deleteProvisioned,
  eventHeaders,
  provision,
} from '@agentwire/bus';
import { HEADERS, names, ProjectionGetReply, type SessionEvent } from '@agentwire/contracts';
import { rebuildProjection } from '@agentwire/domain';
import { createDatabase, type Database, migrate } from '@agentwire/store';
import {
  createTestEnvironment,
  seededRandom,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProjectionProcess, spawnProjection } from './spawn-projection.ts';
import { type GeneratedEvent, generateSessionEvents } from './testing/generate-session-events.ts';

let env: TestEnvironment;
let bus: BusConnection;
let db: Kysely<Database>;
const procs: ProjectionProcess[] = [];
const published = new Map<string, SessionEvent[]>();

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

async function publish(list: readonly { g: GeneratedEvent; copy: number }[]): Promise<void> {
  const n = names(env.prefix);
  for (let i = 0; i < list.length; i += 500) {
    await Promise.all(
      list.slice(i, i + 500).map(({ g, copy }) => {
        const h = eventHeaders(g.event, g.prev);
        if (copy > 0) h.set(HEADERS.msgId, `${g.event.id}#${copy}`);
        return bus.js.publish(n.eventSubject(g.event.sessionId), JSON.stringify(g.event), {
          headers: h,
        });
      }),
    );
  }
}

function makeSessions(
  tag: string,
  count: number,
  events: number,
  seed: number,
): GeneratedEvent[][] {
  return Array.from({ length: count }, (_, i) => {
    const sid = `${tag}${i}`;
    const list = generateSessionEvents(sid, events, seed + i);
    published.set(
      sid,
      list.map((g) => g.event),
    );
    return list;
  });
}

/** Every delivery shuffled across sessions, a share of them published twice. */
function shuffledWithDuplicates(sessions: GeneratedEvent[][], seed: number) {
  const random = seededRandom(seed);
  const all = sessions.flat().map((g) => ({ g, copy: 0 }));
  const dups = all.filter(() => random() < 0.1).map(({ g }) => ({ g, copy: 1 }));
  return shuffle([...all, ...dups], random);
}

/** How {@link waitUntil} polls here: three processes work through thousands of events. */
const patiently = { timeoutMs: 90_000, intervalMs: 100 } as const;

async function caughtUp(sessionIds: readonly string[]): Promise<boolean> {
  const rows = await db
    .selectFrom('session_projections')
    .select(['session_id', 'last_sequence'])
    .where('session_id', 'in', sessionIds)
    .execute();
  const last = new Map(rows.map((r) => [r.session_id, r.last_sequence]));
  return sessionIds.every((sid) => last.get(sid) === published.get(sid)?.at(-1)?.sequenceNumber);
}

async function expectEqualToDomain(sessionIds: readonly string[]): Promise<void> {
  const rows = await db
    .selectFrom('session_projections')
    .select(['session_id', 'projection', 'last_sequence'])
    .where('session_id', 'in', sessionIds)
    .execute();
  expect(rows).toHaveLength(sessionIds.length);
  for (const row of rows) {
    const events = published.get(row.session_id) ?? [];
    expect(row.projection, row.session_id).toEqual(rebuildProjection(row.session_id, events));
    expect(row.last_sequence).toBe(events.at(-1)?.sequenceNumber);
  }
}

/** A live instance's gauge of out-of-order events it holds in memory (its metrics). */
async function heldBy(p: ProjectionProcess): Promise<number> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return 0;
  const res = await fetch(`http://127.0.0.1:${p.port}/metrics`);
  const held = /agentwire_projection_held_events\S* (\d+)/.exec(await res.text());
  return Number(held?.[1] ?? 0);
}

const live = () => procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);

beforeAll(async () => {
  env = await createTestEnvironment();
  bus = await connectBus({ servers: env.natsUrl, name: 'projection-e2e', noAsyncTraces: true });
  await provision(bus.nc, names(env.prefix));
  db = createDatabase(env.databaseUrl);
  await migrate(db);
  const started = await Promise.all(
    [1, 2, 3].map((i) =>
      spawnProjection({
        NATS_URL: env.natsUrl,
        DATABASE_URL: env.databaseUrl,
        AW_PREFIX: env.prefix,
        AW_INSTANCE_ID: `p${i}`,
        AW_ACK_WAIT_MS: '3000',
        AW_PROJECTION_GAP_NAK_DELAY_MS: '200',
        AW_PROJECTION_STUCK_AFTER_MS: '1000',
        LOG_LEVEL: 'info',
      }),
    ),
  );
  procs.push(...started);
});

afterAll(async () => {
  for (const p of live()) p.child.kill('SIGKILL');
  await deleteProvisioned(bus.jsm, names(env.prefix));
  await bus.close();
  await db.destroy();
  await env.dispose();
});

describe('projection service (3 real processes)', () => {
  it('30 sessions x 500 events, shuffled and duplicated: every projection equals the domain reduction', async () => {
    const sessions = makeSessions('a', 30, 500, 100);
    await publish(shuffledWithDuplicates(sessions, 1));
    const ids = sessions.map((s) => s[0]?.event.sessionId ?? '');
    await waitUntil(() => caughtUp(ids), { ...patiently, what: '30 sessions caught up' });
    await expectEqualToDomain(ids);

    const [p1] = procs;
    if (p1 === undefined) throw new Error('no process');
    const http = await fetch(`http://127.0.0.1:${p1.port}/sessions/a0/projection`);
    const body = (await http.json()) as { projection: { id: string }; asOfSeq: number };
    expect(body.asOfSeq).toBe(published.get('a0')?.at(-1)?.sequenceNumber);
    expect(body.projection.id).toBe('a0');
    expect((await fetch(`http://127.0.0.1:${p1.port}/sessions/nope/projection`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${p1.port}/sessions/a.b/projection`)).status).toBe(400);

    const n = names(env.prefix);
    const reply = ProjectionGetReply.parse(
      (await bus.nc.request(n.projectionGet, JSON.stringify({ sessionId: 'a1' }))).json(),
    );
    expect(reply).toMatchObject({ ok: true, asOfSeq: published.get('a1')?.at(-1)?.sequenceNumber });
    const missing = ProjectionGetReply.parse(
      (await bus.nc.request(n.projectionGet, JSON.stringify({ sessionId: 'zz' }))).json(),
    );
    expect(missing).toMatchObject({ ok: false, error: 'not_found' });
  }, 180_000);

  it('one instance killed with SIGKILL mid-stream: nothing is lost, gaps resolve', async () => {
    const sessions = makeSessions('k', 10, 300, 200);
    const all = shuffledWithDuplicates(sessions, 2);
    const half = Math.floor(all.length / 2);
    await publish(all.slice(0, half));
    // Mid-stream: the first half is shuffled, so most of it waits for predecessors in the
    // second half. The instance holding the most of it in memory dies with it unacked.
    let victim: ProjectionProcess | undefined;
    await waitUntil(
      async () => {
        const held = await Promise.all(procs.map(heldBy));
        if (held.reduce((a, b) => a + b, 0) < 300) return false;
        victim = procs[held.indexOf(Math.max(...held))];
        return true;
      },
      { ...patiently, what: "this test's first half to be held" },
    );
    if (victim === undefined) throw new Error('no victim');
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    await publish(all.slice(half));
    const ids = sessions.map((s) => s[0]?.event.sessionId ?? '');
    await waitUntil(() => caughtUp(ids), {
      ...patiently,
      what: 'sessions caught up after the kill',
    });
    await expectEqualToDomain(ids);
  }, 180_000);

  it('a rebuild of all sessions during live load ends equal to a clean rebuild', async () => {
    const sessions = makeSessions('r', 10, 300, 300);
    const inOrder = sessions.flat().sort((x, y) => x.event.sequenceNumber - y.event.sequenceNumber);
    const [p1] = live();
    if (p1 === undefined) throw new Error('no process');
    const chunks = 10;
    const size = Math.ceil(inOrder.length / chunks);
    let job: { id: string } | undefined;
    for (let c = 0; c < chunks; c++) {
      await publish(inOrder.slice(c * size, (c + 1) * size).map((g) => ({ g, copy: 0 })));
      if (c === 2) {
        const res = await fetch(`http://127.0.0.1:${p1.port}/rebuild`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status).toBe(202);
        job = ((await res.json()) as { job: { id: string } }).job;
      }
    }
    let final: { state: string; eventsRead: number; sessionsWritten: number } | undefined;
    await waitUntil(
      async () => {
        const res = await fetch(`http://127.0.0.1:${p1.port}/rebuild/${job?.id}`);
        final = ((await res.json()) as { job: typeof final }).job;
        return final?.state !== 'running';
      },
      { ...patiently, what: 'the rebuild to finish' },
    );
    expect(final?.state).toBe('done');
    expect(final?.eventsRead).toBeGreaterThan(15_000);
    const ids = [...published.keys()];
    await waitUntil(() => caughtUp(ids), {
      ...patiently,
      what: 'all sessions caught up after the rebuild',
    });
    await expectEqualToDomain(ids);
  }, 180_000);

  it('bad input is dead-lettered with its reason and the stuck session is reported', async () => {
    const events = generateSessionEvents('bad1', 5, 9);
    const bad = events[3];
    if (bad === undefined) throw new Error('no event');
    const broken = {
      g: {
        ...bad,
        event: { ...bad.event, payload: { turnNumber: 'x' } } as unknown as SessionEvent,
      },
      copy: 0,
    };
    await publish([
      ...events.slice(0, 3).map((g) => ({ g, copy: 0 })),
      broken,
      { g: events[4] as GeneratedEvent, copy: 0 },
    ]);
    const n = names(env.prefix);
    let reason = '';
    await waitUntil(
      async () => {
        try {
          const dl = await bus.jsm.streams.getMessage(deadLetterStream(n), {
            last_by_subj: n.deadLetterSubject('projection'),
          });
          reason = `${dl?.header.get(HEADERS.deadLetterCode)}: ${dl?.header.get(HEADERS.deadLetterReason)}`;
          return dl !== null;
        } catch {
          return false;
        }
      },
      { ...patiently, what: 'the dead letter' },
    );
    expect(reason).toMatch(/^invalid_payload: invalid payload for/);
    await waitUntil(
      async () => {
        for (const p of live()) {
          const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
          if (/agentwire_projection_stuck_session_waiting_ms\{[^}]*session="bad1"/.test(text))
            return true;
        }
        return false;
      },
      { ...patiently, what: 'the stuck session in metrics' },
    );
    const logs = live().flatMap((p) => p.lines);
    expect(logs.some((l) => l.includes('"sessionId":"bad1"') && l.includes('dead-lettered'))).toBe(
      true,
    );
    const row = await db
      .selectFrom('session_projections')
      .select('last_sequence')
      .where('session_id', '=', 'bad1')
      .executeTakeFirst();
    expect(row?.last_sequence).toBe(events[2]?.event.sequenceNumber);
  });

  it('SIGTERM drains and exits 0', async () => {
    const [p] = live();
    if (p === undefined) throw new Error('no process');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.lines.some((l) => l.includes('projection stopped'))).toBe(true);
  });
});
