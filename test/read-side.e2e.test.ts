import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../services/gateway/src/testing/sse-client.ts';
import { type Stack, startStack } from '../services/gateway/src/testing/start-stack.ts';

/**
 * The read side through the gateway, against the real stack: worker, runtime, projection,
 * query and gateway processes (issue 14 item 1, DESIGN.md "The read side").
 */
let env: TestEnvironment;
let stack: Stack;
let base: string;

interface Json {
  [k: string]: unknown;
}

async function call(method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined
      ? { headers }
      : {
          body: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

interface HistoryPage {
  messages: { message: { id: string; role: string }; parts: { type: string }[] }[];
  older: string | null;
  newer: string | null;
  asOfSeq: number;
}

/** Every message of a session, walking `newer` cursors from the start. */
async function fullHistory(sid: string): Promise<string[]> {
  const ids: string[] = [];
  let query = 'from=start&limit=2';
  for (;;) {
    const reply = await call('GET', `/sessions/${sid}/history?${query}`);
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    const page = reply.json as unknown as HistoryPage;
    ids.push(...page.messages.map((m) => m.message.id));
    if (page.newer === null) return ids;
    query = `cursor=${page.newer}&limit=2`;
  }
}

async function newSession(): Promise<string> {
  const created = await call('POST', '/sessions');
  expect(created.status).toBe(201);
  return String(created.json.sessionId);
}

/** Runs a turn to its end; answers its turn id. */
async function prompt(sid: string, text: string): Promise<string> {
  const reply = await call('POST', `/sessions/${sid}/prompt`, { text, wait: true });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return String(reply.json.turnId);
}

/** The history as a client opens a session: as of the projection's number, retried while the store is behind. */
async function historyAsOfProjection(sid: string): Promise<HistoryPage> {
  const projection = await call('GET', `/sessions/${sid}/projection`);
  const asOf = Number(projection.json.asOfSeq);
  let page: HistoryPage | undefined;
  await waitUntil(
    async () => {
      const reply = await call('GET', `/sessions/${sid}/history?limit=500&asOfSeq=${asOf}`);
      if (reply.status === 409 && (reply.json.error as Json).code === 'not_caught_up') return false;
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      page = reply.json as unknown as HistoryPage;
      return true;
    },
    { what: `history as of ${asOf}` },
  );
  if (page === undefined) throw new Error('no page');
  expect(page.asOfSeq).toBeGreaterThanOrEqual(asOf);
  return page;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env, {
    gateway: true,
    gatewayEnv: {
      AW_GATEWAY_HEARTBEAT_MS: '300',
      // The polls below page with limit 2: more than the default 600 requests a minute.
      AW_GATEWAY_RATE_LIMIT: '100000',
    },
  });
  base = stack.gatewayUrl ?? '';
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
});

describe('the read side through the gateway', () => {
  it('history as of N plus following from N over SSE gives exactly the session', async () => {
    const sid = await newSession();
    await prompt(sid, 'first question');
    await prompt(sid, 'second question');
    const opened = await historyAsOfProjection(sid);
    const n = opened.asOfSeq;
    expect(opened.messages.map((m) => m.message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);

    const sse = await openSse(`${base}/sessions/${sid}/events?after=${n}`);
    expect(sse.status).toBe(200);
    const third = await prompt(sid, 'third question');
    await waitUntil(
      () => sse.events.some((e) => e.type === 'turn_complete' && e.turnId === third),
      { what: 'the third turn over SSE' },
    );
    sse.abort();
    // The follow starts at exactly N + 1 and has every number once.
    const numbers = sse.events.map((e) => e.sequenceNumber);
    expect(numbers[0]).toBe(n + 1);
    expect(numbers).toEqual(numbers.map((_, i) => n + 1 + i));
    // The messages the followed events name. The page is exact for N; it may already hold
    // a message a later event names (the projection's N can trail turn 2's last events),
    // which a follower merges by id (docs/decisions/0181).
    const named = new Set<string>();
    for (const e of sse.events) {
      const payload = e.payload as Json;
      for (const key of ['messageId', 'assistantMessageId']) {
        if (typeof payload[key] === 'string') named.add(payload[key] as string);
      }
    }
    const had = opened.messages.map((m) => m.message.id);
    await waitUntil(async () => (await fullHistory(sid)).length === 6, {
      what: 'the third turn in the store',
      intervalMs: 100,
    });
    const all = await fullHistory(sid);
    expect(all.slice(0, 4)).toEqual(had);
    // Nothing missing and nothing else: the history plus what the follow named is the session.
    expect(new Set([...had, ...named])).toEqual(new Set(all));
    expect(all.slice(4).every((id) => named.has(id))).toBe(true);
  }, 120_000);

  it('lists sessions with titles and status, filters and paginates', async () => {
    const a = await newSession();
    await prompt(a, 'list me');
    const b = await newSession();
    await prompt(b, 'list me too');
    await waitUntil(
      async () => {
        const page = (await call('GET', '/sessions?limit=100')).json as {
          sessions: { id: string; status: string | null }[];
        };
        return [a, b].every((id) => page.sessions.some((s) => s.id === id && s.status === 'idle'));
      },
      { what: 'both sessions listed idle' },
    );
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? 'limit=1' : `limit=1&cursor=${cursor}`;
      const page = (await call('GET', `/sessions?${query}`)).json as {
        sessions: { id: string; title: string | null; titleSource: string | null }[];
        nextCursor: string | null;
      };
      expect(page.sessions.length).toBeLessThanOrEqual(1);
      ids.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(a)); // most recently updated first
    const first = (await call('GET', '/sessions?limit=100')).json as {
      sessions: {
        id: string;
        title: string | null;
        titleSource: string | null;
        directory: string;
      }[];
    };
    expect(first.sessions.find((s) => s.id === a)).toMatchObject({
      title: 'list me',
      titleSource: 'first_input',
    });
    const directory = first.sessions.find((s) => s.id === a)?.directory ?? '';
    const here = (
      await call('GET', `/sessions?directory=${encodeURIComponent(directory)}&limit=100`)
    ).json as { sessions: { id: string }[] };
    expect(here.sessions.map((s) => s.id)).toEqual(expect.arrayContaining([a, b]));
    const nowhere = (await call('GET', '/sessions?directory=%2Fnowhere')).json as {
      sessions: unknown[];
    };
    expect(nowhere.sessions).toEqual([]);
  }, 120_000);

  it('archives, refuses to delete a held session, and deletes a closed one everywhere', async () => {
    const sid = await newSession();
    await prompt(sid, 'short lived');
    expect((await call('POST', `/sessions/${sid}/archive`, {})).json).toEqual({
      sessionId: sid,
      archived: true,
    });
    const listed = async (archived: boolean) =>
      (
        (await call('GET', `/sessions?archived=${archived}&limit=100`)).json as {
          sessions: { id: string }[];
        }
      ).sessions.map((s) => s.id);
    expect(await listed(false)).not.toContain(sid);
    expect(await listed(true)).toContain(sid);

    const held = await call('DELETE', `/sessions/${sid}`);
    expect(held.status).toBe(409);
    expect(held.json.error).toMatchObject({ code: 'session_active' });
    expect((await fullHistory(sid)).length).toBe(2);

    expect((await call('POST', `/sessions/${sid}/close`)).status).toBe(200);
    // Just closed, its last events may still be on their way to the store: 409
    // not_caught_up until the worker and the projection have them, then the delete.
    let deleted = await call('DELETE', `/sessions/${sid}`);
    await waitUntil(
      async () => {
        if (deleted.status !== 409) return true;
        expect((deleted.json.error as Json).code).toBe('not_caught_up');
        deleted = await call('DELETE', `/sessions/${sid}`);
        return false;
      },
      { what: 'the closed session to settle', intervalMs: 100 },
    );
    expect(deleted.status, JSON.stringify(deleted.json)).toBe(200);
    expect(deleted.json).toMatchObject({ sessionId: sid, messages: 2 });
    expect(Number(deleted.json.events)).toBeGreaterThan(0);
    expect((await call('GET', `/sessions/${sid}/history`)).status).toBe(404);
    expect((await openSse(`${base}/sessions/${sid}/events?after=0`)).status).toBe(404);
    expect(await listed(true)).not.toContain(sid);
    expect((await call('DELETE', `/sessions/${sid}`)).status).toBe(404);
  }, 120_000);

  it('answers bad input with a clear 4xx naming it, and changes nothing', async () => {
    const sid = await newSession();
    await prompt(sid, 'keep me');
    const other = await newSession();
    await prompt(other, 'another');
    // A turn's reply can come before its assistant message commits (docs/decisions/0181).
    for (const id of [sid, other]) {
      await waitUntil(async () => (await fullHistory(id)).length === 2, {
        what: `both messages of ${id} in the store`,
        intervalMs: 100,
      });
    }
    const page = (await call('GET', `/sessions/${other}/history?limit=1`))
      .json as unknown as HistoryPage;
    const otherCursor = page.older ?? '';
    expect(otherCursor).not.toBe('');
    const list = (await call('GET', '/sessions?limit=1')).json as { nextCursor: string };
    const snapshot = async () => ({
      sessions: (await call('GET', '/sessions?limit=500')).json,
      archived: (await call('GET', '/sessions?limit=500&archived=true')).json,
      history: await fullHistory(sid),
    });
    // Settled: the worker and the projection have nothing left to write for these sessions.
    let before = await snapshot();
    await waitUntil(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const again = await snapshot();
        const same = JSON.stringify(again) === JSON.stringify(before);
        before = again;
        return same;
      },
      { what: 'the store to settle' },
    );
    const raw = (method: string, path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, { method, ...init });
    const cases: [string, () => Promise<Response>, number, string, RegExp][] = [
      [
        'a cursor not issued here',
        () => raw('GET', `/sessions/${sid}/history?cursor=Zm9vYmFy`),
        400,
        'bad_cursor',
        /not one this service issued/,
      ],
      [
        'a cursor of another session',
        () => raw('GET', `/sessions/${sid}/history?cursor=${otherCursor}`),
        400,
        'bad_cursor',
        new RegExp(other),
      ],
      [
        'a list cursor for history',
        () => raw('GET', `/sessions/${sid}/history?cursor=${list.nextCursor}`),
        400,
        'bad_cursor',
        /session-list cursor/,
      ],
      [
        'a list cursor with other filters',
        () => raw('GET', `/sessions?archived=true&cursor=${list.nextCursor}`),
        400,
        'bad_cursor',
        /other filters/,
      ],
      [
        'a negative limit',
        () => raw('GET', '/sessions?limit=-3'),
        400,
        'invalid_request',
        /query\.limit: must be at least 1/,
      ],
      [
        'a limit that is no number',
        () => raw('GET', `/sessions/${sid}/history?limit=ten`),
        400,
        'invalid_request',
        /query\.limit: must be a whole number/,
      ],
      [
        'a limit over 500',
        () => raw('GET', '/sessions?limit=501'),
        400,
        'invalid_request',
        /at most 500/,
      ],
      [
        'a limit given twice',
        () => raw('GET', '/sessions?limit=1&limit=2'),
        400,
        'invalid_request',
        /query\.limit/,
      ],
      [
        'an unknown filter',
        () => raw('GET', '/sessions?colour=blue'),
        400,
        'invalid_request',
        /colour/,
      ],
      [
        'archived neither true nor false',
        () => raw('GET', '/sessions?archived=maybe'),
        400,
        'invalid_request',
        /query\.archived/,
      ],
      [
        'a malformed id',
        () => raw('GET', '/sessions/a.b/history'),
        400,
        'invalid_request',
        /params\.id/,
      ],
      ['a wildcard id', () => raw('DELETE', '/sessions/%2A'), 400, 'invalid_request', /params\.id/],
      [
        'a tail wildcard id',
        () =>
          raw('POST', '/sessions/%3E/archive', {
            body: '{}',
            headers: { 'content-type': 'application/json' },
          }),
        400,
        'invalid_request',
        /params\.id/,
      ],
      [
        'a malformed parent filter',
        () => raw('GET', '/sessions?parentId=x.*'),
        400,
        'invalid_request',
        /query\.parentId/,
      ],
      [
        'cursor and from together',
        () => raw('GET', `/sessions/${sid}/history?cursor=${otherCursor}&from=start`),
        400,
        'invalid_request',
        /exclude each other/,
      ],
      [
        'a negative asOfSeq',
        () => raw('GET', `/sessions/${sid}/history?asOfSeq=-1`),
        400,
        'invalid_request',
        /query\.asOfSeq/,
      ],
      [
        'an unknown archive field',
        () =>
          raw('POST', `/sessions/${sid}/archive`, {
            body: '{"hidden":true}',
            headers: { 'content-type': 'application/json' },
          }),
        400,
        'invalid_request',
        /hidden/,
      ],
      [
        'archive with a string flag',
        () =>
          raw('POST', `/sessions/${sid}/archive`, {
            body: '{"archived":"yes"}',
            headers: { 'content-type': 'application/json' },
          }),
        400,
        'invalid_request',
        /body\.archived/,
      ],
      [
        'archive as CSV',
        () =>
          raw('POST', `/sessions/${sid}/archive`, {
            body: 'archive',
            headers: { 'content-type': 'text/csv' },
          }),
        415,
        'unsupported_media_type',
        /media type/i,
      ],
      [
        'archive with broken JSON',
        () =>
          raw('POST', `/sessions/${sid}/archive`, {
            body: '{',
            headers: { 'content-type': 'application/json' },
          }),
        400,
        'invalid_json',
        /JSON/,
      ],
      [
        'an oversized archive body',
        () =>
          raw('POST', `/sessions/${sid}/archive`, {
            body: JSON.stringify({ archived: true, pad: 'x'.repeat(300 * 1024) }),
            headers: { 'content-type': 'application/json' },
          }),
        413,
        'body_too_large',
        /./,
      ],
      [
        'a delete with a body',
        () =>
          raw('DELETE', `/sessions/${sid}`, {
            body: '{"force":true}',
            headers: { 'content-type': 'application/json' },
          }),
        400,
        'invalid_request',
        /takes no body/,
      ],
      [
        'history of an unknown session',
        () => raw('GET', '/sessions/nobody-here/history'),
        404,
        'not_found',
        /nobody-here/,
      ],
      [
        'an unknown route',
        () => raw('GET', `/sessions/${sid}/histories`),
        404,
        'route_not_found',
        /histories/,
      ],
      [
        'history as of a number not reached',
        () => raw('GET', `/sessions/${sid}/history?asOfSeq=999999`),
        409,
        'not_caught_up',
        /999999/,
      ],
    ];
    for (const [name, send, status, code, message] of cases) {
      const res = await send();
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status, `${name}: ${JSON.stringify(body)}`).toBe(status);
      expect(body.error.code, name).toBe(code);
      expect(body.error.message, name).toMatch(message);
    }
    expect(await snapshot()).toEqual(before);
  }, 120_000);
});
