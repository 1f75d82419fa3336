import {
  BlobStore,
  type BusConnection,
  connectBus,
  QueryClient,
  type RuntimeResult,
} from '@agentwire/bus';
import { HEADERS, type HistoryReply, names, parseTranscript } from '@agentwire/contracts';
import { createDatabase, ensureSession, migrate } from '@agentwire/store';
import { canonicalDump } from '@agentwire/store/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { RetentionPolicy } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryConfig } from './config.ts';
import { type QueryService, startQueryService } from './query-service.ts';
import { seededMessageId, seedLongSession } from './testing/seed-history.ts';

let env: TestEnvironment;
let db: ReturnType<typeof createDatabase>;
let service: QueryService;
let bus: BusConnection;
let client: QueryClient;

const LONG = 'long-1';
const COUNT = 10_000;

function ok<T>(result: RuntimeResult<T>): T {
  if ((result as { ok?: unknown }).ok === false) {
    throw new Error(`unexpected failure: ${JSON.stringify(result)}`);
  }
  return result as T;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createDatabase(env.databaseUrl, { poolSize: 2 });
  await migrate(db);
  service = await startQueryService(
    QueryConfig.parse({
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      AW_PREFIX: env.prefix,
      HTTP_HOST: '127.0.0.1',
      AW_PG_POOL_SIZE: '2',
    }),
  );
  bus = await connectBus({ servers: env.natsUrl, name: 'query-test' });
  client = new QueryClient(bus, names(env.prefix), { timeoutMs: 30_000 });
  await seedLongSession(db, LONG, COUNT);
}, 120_000);

afterAll(async () => {
  await bus?.close();
  await service?.stop();
  await db?.destroy();
  await env?.dispose();
});

describe('history of a 10,000-message session', () => {
  const expected = Array.from({ length: COUNT }, (_, i) => seededMessageId(LONG, i));

  it('pages forward from the start: every message once, in order, with its parts', async () => {
    const seen: string[] = [];
    let page = ok(await client.history({ sessionId: LONG, from: 'start', limit: 100 }));
    expect(page.older).toBeNull();
    for (;;) {
      for (const m of page.messages) {
        seen.push(m.message.id);
        expect(m.parts.map((p) => p.type)).toEqual(
          m.message.role === 'user' ? ['text'] : ['text', 'reasoning'],
        );
      }
      if (page.newer === null) break;
      page = ok(await client.history({ sessionId: LONG, cursor: page.newer, limit: 100 }));
    }
    expect(seen).toEqual(expected);
  }, 120_000);

  it('pages backward from the end, and forward again from a page in the middle', async () => {
    const pages: HistoryReply[] = [];
    let page = ok(await client.history({ sessionId: LONG, limit: 333 }));
    expect(page.newer).toBeNull();
    for (;;) {
      pages.unshift(page);
      if (page.older === null) break;
      page = ok(await client.history({ sessionId: LONG, cursor: page.older, limit: 333 }));
    }
    expect(pages.flatMap((p) => p.messages.map((m) => m.message.id))).toEqual(expected);
    // Turn around in the middle: the newer cursor of a page reached backwards.
    const middle = pages[10];
    if (middle?.newer === null || middle === undefined) throw new Error('no middle page');
    const seen = middle.messages.map((m) => m.message.id);
    let next: string | null = middle.newer;
    while (next !== null) {
      const forward: HistoryReply = ok(
        await client.history({ sessionId: LONG, cursor: next, limit: 500 }),
      );
      seen.push(...forward.messages.map((m) => m.message.id));
      next = forward.newer;
    }
    expect(seen).toEqual(expected.slice(expected.indexOf(seen[0] ?? '')));
    expect(seen.length).toBeGreaterThan(COUNT - 11 * 333);
  }, 120_000);

  it('answers as of its sequence mark, and not_caught_up beyond it', async () => {
    const page = ok(await client.history({ sessionId: LONG, limit: 1, asOfSeq: COUNT * 2 }));
    expect(page.asOfSeq).toBe(COUNT * 2);
    const behind = await client.history({ sessionId: LONG, limit: 1, asOfSeq: COUNT * 2 + 1 });
    expect(behind).toMatchObject({
      ok: false,
      error: { code: 'not_caught_up', detail: { storedSequence: COUNT * 2 } },
    });
  });

  it('is not caught up while a write of the session waits in the commands stream', async () => {
    const n = names(env.prefix);
    await bus.jsm.streams.add({
      name: n.commandsStream,
      subjects: [n.allCommandsFilter],
      retention: RetentionPolicy.Workqueue,
    });
    try {
      await bus.js.publish(n.commandSubject(LONG), '{}');
      const waiting = await client.history({ sessionId: LONG, limit: 1, asOfSeq: 1 });
      expect(waiting).toMatchObject({
        ok: false,
        error: { code: 'not_caught_up', detail: { pendingCommands: 1 } },
      });
      // Without asOfSeq the page is the store's, whatever is pending.
      expect(ok(await client.history({ sessionId: LONG, limit: 1 })).asOfSeq).toBe(COUNT * 2);
      await bus.jsm.streams.purge(n.commandsStream);
      expect(ok(await client.history({ sessionId: LONG, limit: 1, asOfSeq: 1 })).asOfSeq).toBe(1);
    } finally {
      await bus.jsm.streams.delete(n.commandsStream);
    }
  });
});

describe('session list', () => {
  beforeAll(async () => {
    for (let i = 0; i < 23; i += 1) {
      await ensureSession(db, {
        id: `ls-${i}`,
        cwd: i % 2 === 0 ? '/even' : '/odd',
        parentId: i % 5 === 0 ? null : 'ls-0',
        taskType: i % 3 === 0 ? 'subagent' : null,
        title: `session ${i}`,
        titleSource: 'first_input',
        createdAt: 1_700_000_100_000 + i,
      });
    }
    // Two share one update time to the microsecond: the page key breaks the tie by id.
    await db
      .updateTable('sessions')
      .set({ updated_at: new Date(1_700_000_200_000) })
      .where('id', 'in', ['ls-3', 'ls-4'])
      .execute();
    await db.updateTable('sessions').set({ archived: true }).where('id', '=', 'ls-7').execute();
    await db
      .insertInto('session_projections')
      .values({
        session_id: 'ls-2',
        projection: JSON.stringify({ status: 'running', updatedAt: 1_700_000_300_000 }),
        last_sequence: 42,
      })
      .execute();
  });

  async function all(filters: Record<string, unknown>, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = ok(
        await client.listSessions({
          ...filters,
          limit,
          ...(cursor === undefined ? {} : { cursor }),
        }),
      );
      expect(page.sessions.length).toBeLessThanOrEqual(limit);
      ids.push(...page.sessions.map((s) => s.id));
      if (page.nextCursor === null) return ids;
      cursor = page.nextCursor;
    }
  }

  it('pages through every unarchived session once, most recently updated first', async () => {
    const ids = (await all({ directory: '/even' }, 4)).concat(await all({ directory: '/odd' }, 3));
    const listed = ids.filter((id) => id.startsWith('ls-'));
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(
      Array.from({ length: 23 }, (_, i) => `ls-${i}`)
        .filter((id) => id !== 'ls-7')
        .sort(),
    );
    const even = await all({ directory: '/even' }, 4);
    expect(even.slice(0, 2)).toEqual(['ls-4', 'ls-22']);
  });

  it('filters by directory, parent, task type and archived', async () => {
    expect((await all({ directory: '/odd', taskType: 'subagent' }, 2)).sort()).toEqual(
      ['ls-15', 'ls-21', 'ls-3', 'ls-9'].sort(),
    );
    expect((await all({ parentId: null, directory: '/even' }, 2)).sort()).toEqual(
      ['ls-0', 'ls-10', 'ls-20'].sort(),
    );
    expect(await all({ parentId: 'ls-0', directory: '/odd' }, 50)).not.toContain('ls-5');
    expect(await all({ archived: true }, 5)).toEqual(['ls-7']);
  });

  it('carries title, title source, status and last activity', async () => {
    const page = ok(await client.listSessions({ directory: '/even', limit: 50 }));
    const two = page.sessions.find((s) => s.id === 'ls-2');
    expect(two).toMatchObject({
      title: 'session 2',
      titleSource: 'first_input',
      status: 'running',
      lastActivityAt: 1_700_000_300_000,
      lastSequence: 42,
      directory: '/even',
      parentId: 'ls-0',
    });
    expect(page.sessions.find((s) => s.id === 'ls-4')?.status).toBeNull();
  });
});

describe('archive and delete', () => {
  it('archives and restores a session', async () => {
    await ensureSession(db, { id: 'arc-1', cwd: '/arc', createdAt: 1_700_000_000_000 });
    expect(ok(await client.archive({ sessionId: 'arc-1' }))).toMatchObject({ archived: true });
    expect(ok(await client.listSessions({ directory: '/arc' })).sessions).toEqual([]);
    expect(
      ok(await client.listSessions({ directory: '/arc', archived: true })).sessions,
    ).toHaveLength(1);
    await client.archive({ sessionId: 'arc-1', archived: false });
    expect(ok(await client.listSessions({ directory: '/arc' })).sessions).toHaveLength(1);
  });

  it('deletes every row of a session, and refuses one a runtime holds', async () => {
    await seedLongSession(db, 'del-1', 5);
    await seedLongSession(db, 'del-held', 3);
    const kv = await new Kvm(bus.nc).create(names(env.prefix).leaseBucket, { history: 1 });
    await kv.put('del-held', JSON.stringify({ owner: 'rt-1', epoch: 1 }));
    const held = await client.delete('del-held');
    expect(held).toMatchObject({ ok: false, error: { code: 'session_active' } });
    expect(ok(await client.history({ sessionId: 'del-held' })).messages).toHaveLength(3);
    await kv.delete('del-held');
    expect(ok(await client.delete('del-held'))).toMatchObject({ messages: 3 });

    expect(ok(await client.delete('del-1'))).toMatchObject({ sessionId: 'del-1', messages: 5 });
    const rows = await db
      .selectFrom('parts')
      .select('id')
      .where('session_id', '=', 'del-1')
      .execute();
    expect(rows).toEqual([]);
    expect(await client.history({ sessionId: 'del-1' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await client.delete('del-1')).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('refuses to delete a session the store has not caught up with, then purges its events', async () => {
    const n = names(env.prefix);
    await bus.jsm.streams.add({ name: n.eventsStream, subjects: [n.eventsStreamSubject] });
    try {
      await seedLongSession(db, 'del-late', 2, { lastSequence: 4 });
      const headers = natsHeaders();
      headers.set(HEADERS.sequence, '5');
      await bus.js.publish(n.eventSubject('del-late'), '{}', { headers });
      const late = await client.delete('del-late');
      expect(late).toMatchObject({
        ok: false,
        error: { code: 'not_caught_up', detail: { lastEvent: 5, stored: 4, projected: null } },
      });
      await db
        .updateTable('sessions')
        .set({ last_sequence: 5 })
        .where('id', '=', 'del-late')
        .execute();
      await db
        .insertInto('session_projections')
        .values({ session_id: 'del-late', projection: '{}', last_sequence: 5 })
        .execute();
      expect(ok(await client.delete('del-late'))).toMatchObject({ messages: 2, events: 1 });
      const left = await bus.jsm.streams.info(n.eventsStream);
      expect(left.state.messages).toBe(0);
    } finally {
      await bus.jsm.streams.delete(n.eventsStream);
    }
  });
});

describe('bad input', () => {
  const other = Buffer.from(
    JSON.stringify({ v: 1, k: 'history', s: 'someone-else', m: 'x', d: 'newer' }),
  ).toString('base64url');

  const cases: [string, string, unknown, string, RegExp][] = [
    [
      'garbage cursor',
      'history',
      { sessionId: LONG, cursor: 'bm90LWEtY3Vyc29y' },
      'bad_cursor',
      /not one this service issued/,
    ],
    [
      'cursor of another session',
      'history',
      { sessionId: LONG, cursor: other },
      'bad_cursor',
      /someone-else/,
    ],
    [
      'cursor with illegal characters',
      'history',
      { sessionId: LONG, cursor: 'a+b/c=' },
      'invalid_request',
      /cursor/,
    ],
    [
      'history cursor on the list',
      'list_sessions',
      { cursor: other },
      'bad_cursor',
      /history cursor/,
    ],
    [
      'negative limit',
      'history',
      { sessionId: LONG, limit: -5 },
      'invalid_request',
      /limit: must be at least 1/,
    ],
    ['zero limit', 'list_sessions', { limit: 0 }, 'invalid_request', /limit/],
    [
      'limit over the maximum',
      'list_sessions',
      { limit: 501 },
      'invalid_request',
      /limit: must be at most 500/,
    ],
    [
      'fractional limit',
      'history',
      { sessionId: LONG, limit: 2.5 },
      'invalid_request',
      /limit: must be a whole number/,
    ],
    ['unknown filter', 'list_sessions', { colour: 'blue' }, 'invalid_request', /colour/],
    ['malformed id', 'history', { sessionId: 'a.b' }, 'invalid_request', /sessionId/],
    ['wildcard id', 'delete', { sessionId: '*' }, 'invalid_request', /sessionId/],
    ['tail wildcard id', 'archive', { sessionId: '>' }, 'invalid_request', /sessionId/],
    ['empty id', 'history', { sessionId: '' }, 'invalid_request', /sessionId/],
    [
      'cursor and from',
      'history',
      { sessionId: LONG, cursor: other, from: 'start' },
      'invalid_request',
      /exclude each other/,
    ],
    [
      'negative asOfSeq',
      'history',
      { sessionId: LONG, asOfSeq: -1 },
      'invalid_request',
      /asOfSeq: must not be negative/,
    ],
    ['archived not a boolean', 'list_sessions', { archived: 'yes' }, 'invalid_request', /archived/],
    ['archive of an unknown session', 'archive', { sessionId: 'nobody' }, 'not_found', /nobody/],
    ['unknown operation', 'drop_table', {}, 'unknown_op', /drop_table/],
  ];

  it.each(cases)(
    '%s is a typed error naming it, and changes nothing',
    async (_name, op, body, code, message) => {
      const before = await canonicalDump(db, { tables: ['sessions'] });
      const reply = await bus.nc.request(`${env.prefix}.query.${op}`, JSON.stringify(body), {
        timeout: 10_000,
      });
      const parsed = reply.json<{ ok: boolean; error: { code: string; message: string } }>();
      expect(parsed.ok).toBe(false);
      expect(parsed.error.code).toBe(code);
      expect(parsed.error.message).toMatch(message);
      expect(await canonicalDump(db, { tables: ['sessions'] })).toEqual(before);
    },
  );

  it('counts requests by operation and outcome on /metrics', async () => {
    const res = await fetch(`http://127.0.0.1:${service.port}/metrics`);
    const text = await res.text();
    expect(text).toMatch(
      /agentwire_query_requests_total\{[^}]*op="history"[^}]*outcome="ok"[^}]*\} \d+/,
    );
    expect(text).toMatch(
      /agentwire_query_requests_total\{[^}]*op="unknown"[^}]*outcome="unknown_op"/,
    );
  });

  it('exports a file too large for one reply through the blob store, read back whole', {
    timeout: 60_000,
  }, async () => {
    // The runtimes make the bucket; here nothing else did.
    await BlobStore.create(bus.nc, names(env.prefix)).ready();
    const wire = await bus.nc.request(
      `${env.prefix}.query.export`,
      JSON.stringify({ sessionId: LONG }),
      { timeout: 30_000 },
    );
    const sent = wire.json<{ ok: boolean; transcript?: string; transcriptRef?: string }>();
    expect(sent).toMatchObject({ ok: true, messages: COUNT });
    expect(sent.transcript).toBeUndefined();
    expect(wire.data.length).toBeLessThan(1024);

    const exported = ok(await client.exportSession(LONG, { timeoutMs: 30_000 }));
    expect(Buffer.byteLength(exported.transcript)).toBeGreaterThan(900 * 1024);
    const parsed = parseTranscript(exported.transcript, {
      maxBytes: 64 * 1024 * 1024,
      maxMessages: COUNT,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
    expect(parsed.entries.map((e) => e.message.id)).toEqual(
      Array.from({ length: COUNT }, (_, i) => seededMessageId(LONG, i)),
    );
  });

  it('a body that is not JSON is invalid_request', async () => {
    const reply = await bus.nc.request(`${env.prefix}.query.history`, '{nope', { timeout: 10_000 });
    expect(reply.json()).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: 'request body is not JSON' },
    });
  });
});
