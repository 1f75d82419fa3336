import type { RuntimeFailureCode, RuntimeResult } from '@agentwire/bus';
import {
  type ExportReply,
  formatTranscript,
  TRANSCRIPT_FORMAT,
  TRANSCRIPT_MAX_BYTES,
  type TranscriptEntry,
} from '@agentwire/contracts';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenVerifier } from './auth/token-verifier.ts';
import { buildApp } from './build-app.ts';
import type { QueryBackend } from './query-port.ts';
import { FakeBackend } from './testing/fake-backend.ts';
import { MemoryOwners } from './testing/memory-owners.ts';

const user = (id: string, treeParentId: string | null, text: string): TranscriptEntry => ({
  message: {
    id,
    sessionId: 's1',
    role: 'user',
    time: { created: 1 },
    agent: 'build',
    treeParentId,
  },
  parts: [{ id: `${id}.t`, sessionId: 's1', messageId: id, type: 'text', text }],
});

/** A two-message transcript file of session `s1`, as an export writes it. */
const TRANSCRIPT = formatTranscript(
  { format: TRANSCRIPT_FORMAT, version: 1, sessionId: 's1', title: 'Fix it', exportedAt: 1 },
  [user('msg_1', null, 'hi'), user('msg_2', 'msg_1', 'hello')],
);

/** A read side whose export answers `exportReply` (the transcript of s1 by default). */
class FakeQuery implements QueryBackend {
  readonly calls: string[] = [];
  exportReply: RuntimeResult<ExportReply> = {
    ok: true,
    sessionId: 's1',
    messages: 2,
    transcript: TRANSCRIPT,
  };
  readonly #unused = { ok: false as const, error: { code: 'internal', message: 'unused' } };
  listSessions = async () => ({ ok: true as const, sessions: [], nextCursor: null });
  history = async () => this.#unused;
  archive = async () => this.#unused;
  delete = async () => this.#unused;
  async exportSession(sessionId: string) {
    this.calls.push(sessionId);
    return this.exportReply;
  }
}

let backend: FakeBackend;
let query: FakeQuery;
let app: FastifyInstance;

beforeEach(() => {
  backend = new FakeBackend();
  query = new FakeQuery();
  app = buildApp({ backend, query, bodyLimit: 1024, heartbeatMs: 60_000 });
});
afterEach(async () => {
  await app.close();
});

const fork = (body: unknown, id = 's1') =>
  app.inject({
    method: 'POST',
    url: `/sessions/${id}/fork`,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

const importFile = (payload: string | Buffer, type = 'application/jsonl') =>
  app.inject({
    method: 'POST',
    url: '/sessions/import',
    payload,
    headers: { 'content-type': type },
  });

interface ErrorJson {
  error: { code: string; message: string; detail?: { line?: number; issues?: { path: string }[] } };
}

describe('POST /sessions/:id/fork (docs/decisions/0243)', () => {
  it('runs the fork operation and answers the new session, 200', async () => {
    const r = await fork({ messageId: 'msg_2' });
    expect(r.statusCode, r.body).toBe(200);
    expect(backend.calls.map((c) => [c.method, ...c.args])).toEqual([['fork', 's1', 'msg_2']]);
    expect(r.json()).toEqual({
      sessionId: 's1',
      inputId: 'input-3',
      command: 'fork',
      queued: false,
      result: {
        forkedSessionId: 'forked-session',
        owner: 'rt1',
        targetMessageId: 'msg_2',
        messageCount: 4,
      },
    });
  });

  it('answers 202 with the ticket while a turn runs: the fork waits in the queue', async () => {
    backend.runningTurn = 'turn-1';
    const r = await fork({ messageId: 'msg_2' });
    expect(r.statusCode).toBe(202);
    expect(r.json()).toEqual({
      sessionId: 's1',
      inputId: 'input-3',
      delivery: 'queue',
      targetTurnId: 'turn-1',
      queueLength: 1,
      queued: true,
    });
  });

  it.each([
    ['unknown_message', 404],
    ['unknown_session', 404],
    ['turn_in_progress', 409],
    ['invalid_command', 400],
    ['write_not_confirmed', 504],
  ] satisfies [RuntimeFailureCode, number][])('maps %s to %i', async (code, status) => {
    backend.failNext = { ok: false, error: { code, message: `refused: ${code}` } };
    const r = await fork({ messageId: 'msg_2' });
    expect(r.statusCode).toBe(status);
    expect(r.json()).toEqual({ error: { code, message: `refused: ${code}` } });
  });

  it.each([
    [{ messageId: 'msg_*' }, 'body.messageId'],
    [{ messageId: 'msg_1 msg_2' }, 'body.messageId'],
    [{ messageId: 'aw.rt.>' }, 'body.messageId'],
    [{ messageId: 'msg_1\n' }, 'body.messageId'],
    [{ messageId: '' }, 'body.messageId'],
    [{}, 'body.messageId'],
    [{ messageId: 'msg_1', wait: true }, 'body'],
  ])('refuses %j with a 400 naming %s, nothing sent', async (body, field) => {
    const r = await fork(body);
    expect(r.statusCode, r.body).toBe(400);
    const { error } = r.json<ErrorJson>();
    expect(error.code).toBe('invalid_request');
    expect(error.detail?.issues?.map((i) => i.path)).toContain(field);
    expect(backend.calls).toEqual([]);
  });

  it('refuses a session id that is not one subject token', async () => {
    const r = await fork({ messageId: 'msg_1' }, 's*1');
    expect(r.statusCode).toBe(400);
    expect(r.json<ErrorJson>().error.detail?.issues?.map((i) => i.path)).toEqual(['params.id']);
  });
});

describe('GET /sessions/:id/export (docs/decisions/0243)', () => {
  it('answers the transcript file as JSON Lines with a file name', async () => {
    const r = await app.inject({ method: 'GET', url: '/sessions/s1/export' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/jsonl; charset=utf-8');
    expect(r.headers['content-disposition']).toBe('attachment; filename="s1.jsonl"');
    expect(r.body).toBe(TRANSCRIPT);
    expect(query.calls).toEqual(['s1']);
  });

  it('answers 503 with retry-after while the store has not caught up', async () => {
    query.exportReply = {
      ok: false,
      error: {
        code: 'not_caught_up',
        message: 'the store has not yet committed 2 write(s); retry',
        detail: { pendingCommands: 2, retryable: true },
      },
    };
    const r = await app.inject({ method: 'GET', url: '/sessions/s1/export' });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json<ErrorJson>().error).toMatchObject({ code: 'not_caught_up' });
  });

  it.each([
    ['transcript_too_large', 413],
    ['not_found', 404],
    ['unavailable', 503],
    ['timeout', 504],
  ])('maps %s to %i, as JSON', async (code, status) => {
    query.exportReply = { ok: false, error: { code, message: `refused: ${code}` } };
    const r = await app.inject({ method: 'GET', url: '/sessions/s1/export' });
    expect(r.statusCode).toBe(status);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.json()).toEqual({ error: { code, message: `refused: ${code}` } });
    expect(r.headers['retry-after']).toBeUndefined();
  });

  it('refuses a session id that is not one subject token, asking nothing', async () => {
    const r = await app.inject({ method: 'GET', url: '/sessions/a.b/export' });
    expect(r.statusCode).toBe(400);
    expect(query.calls).toEqual([]);
  });

  it('is absent without a read side', async () => {
    await app.close();
    app = buildApp({ backend, heartbeatMs: 60_000 });
    const r = await app.inject({ method: 'GET', url: '/sessions/s1/export' });
    expect(r.statusCode).toBe(404);
    expect(r.json<ErrorJson>().error.code).toBe('route_not_found');
  });
});

describe('POST /sessions/import (docs/decisions/0243)', () => {
  it.each([
    'application/jsonl',
    'application/x-ndjson',
    'text/plain',
    'application/jsonl; charset=utf-8',
  ])('takes the file as a %s body and answers the new session, 201', async (type) => {
    const r = await importFile(TRANSCRIPT, type);
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toEqual({
      sessionId: 'imported-session',
      owner: 'rt1',
      lastSequence: 0,
      imported: 2,
    });
    expect(backend.calls).toEqual([{ method: 'importSession', args: [TRANSCRIPT] }]);
  });

  it('takes a file larger than the JSON routes body limit', async () => {
    const long = TRANSCRIPT.replace('"hello"', JSON.stringify('x'.repeat(4096)));
    const r = await importFile(long);
    expect(r.statusCode, r.body).toBe(201);
  });

  it.each([
    ['not a transcript', 1, /line 1 is not JSON/],
    [`${TRANSCRIPT.split('\n')[0]}\n{"message":`, 2, /line 2 is not JSON/],
    [TRANSCRIPT.replace('"treeParentId":null', '"treeParentId":"msg_2"'), 2, /cycle/],
    [
      TRANSCRIPT.replace('"id":"msg_1","sessionId":"s1"', '"id":"msg_1","sessionId":"s2"'),
      2,
      /of session s2/,
    ],
  ])(
    'refuses a malformed file with 400 invalid_transcript naming the line (%#)',
    async (text, line, message) => {
      const r = await importFile(text);
      expect(r.statusCode, r.body).toBe(400);
      const { error } = r.json<ErrorJson>();
      expect(error).toMatchObject({ code: 'invalid_transcript', detail: { line } });
      expect(error.message).toMatch(message);
    },
  );

  it("lets the backend refuse a file over what an import takes (413 transcript_too_large), Fastify's limit past 65 MiB", async () => {
    const header = TRANSCRIPT.split('\n')[0];
    const over = await importFile(`${header}\n${'x'.repeat(TRANSCRIPT_MAX_BYTES)}`);
    expect(over.statusCode).toBe(413);
    expect(over.json<ErrorJson>().error).toMatchObject({
      code: 'transcript_too_large',
      detail: { line: 0 },
    });
    const huge = await importFile(`${header}\n${'x'.repeat(TRANSCRIPT_MAX_BYTES + 1100 * 1024)}`);
    expect(huge.statusCode).toBe(413);
    expect(huge.headers['content-type']).toMatch(/^application\/json/);
    expect(huge.json<ErrorJson>().error.code).toBe('body_too_large');
    expect(backend.calls).toHaveLength(1);
  });

  it('refuses JSON and a body without a media type (415, nothing sent); an empty file is line 1', async () => {
    const json = await importFile(JSON.stringify({ transcript: TRANSCRIPT }), 'application/json');
    expect(json.statusCode).toBe(415);
    expect(json.json<ErrorJson>().error.code).toBe('unsupported_media_type');
    const none = await app.inject({ method: 'POST', url: '/sessions/import', payload: 'x' });
    expect(none.statusCode).toBe(415);
    expect(backend.calls).toEqual([]);
    const empty = await importFile('');
    expect(empty.statusCode).toBe(400);
    expect(empty.json<ErrorJson>().error).toMatchObject({
      code: 'invalid_transcript',
      detail: { line: 1 },
    });
  });

  it('keeps JSON on the other routes: a text body there is still refused', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/sessions/s1/fork',
      payload: TRANSCRIPT,
      headers: { 'content-type': 'application/jsonl' },
    });
    expect(r.statusCode).toBe(415);
    expect(backend.calls).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('lists fork, export and import with their bodies and answers', async () => {
    await app.ready();
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, unknown> };
            responses: Record<string, { content?: Record<string, unknown> }>;
          }
        >
      >;
    }>();
    const forkRoute = doc.paths['/sessions/{id}/fork']?.post;
    expect(JSON.stringify(forkRoute?.requestBody)).toContain('messageId');
    expect(Object.keys(forkRoute?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '202', '4XX', '5XX']),
    );
    const exportRoute = doc.paths['/sessions/{id}/export']?.get;
    expect(Object.keys(exportRoute?.responses['200']?.content ?? {})).toEqual([
      'application/jsonl',
    ]);
    const importRoute = doc.paths['/sessions/import']?.post;
    expect(Object.keys(importRoute?.requestBody?.content ?? {}).sort()).toEqual(
      ['application/jsonl', 'application/x-ndjson', 'text/plain'].sort(),
    );
    expect(Object.keys(importRoute?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '4XX', '5XX']),
    );
  });
});

describe('transcript routes with tenants (docs/decisions/0146)', () => {
  const SECRET = 'a-development-secret-of-32-chars!!';
  const token = (tenant: string, scope: string) =>
    new SignJWT({ tenant, scope })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://auth.example')
      .setAudience('agentwire')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));

  it("needs write to fork and import, read to export; another tenant's session is 404; made sessions are the caller's", async () => {
    await app.close();
    const owners = new MemoryOwners();
    owners.owners.set('s1', 'tenant-a');
    const verify = await createTokenVerifier({
      keys: { kind: 'secret', secret: SECRET },
      issuer: 'https://auth.example',
      audience: 'agentwire',
      maxTokenAge: '1h',
    });
    app = buildApp({
      backend,
      query,
      heartbeatMs: 60_000,
      auth: { verify, owners, maxTokenBytes: 4096 },
    });
    const as = async (tenant: string, scope: string) => ({
      authorization: `Bearer ${await token(tenant, scope)}`,
    });
    const reader = await as('tenant-a', 'read');
    const writer = await as('tenant-a', 'write');
    const other = await as('tenant-b', 'admin');
    const forkAs = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/sessions/s1/fork',
        payload: JSON.stringify({ messageId: 'msg_2' }),
        headers: { ...headers, 'content-type': 'application/json' },
      });
    const exportAs = (headers: Record<string, string>) =>
      app.inject({ method: 'GET', url: '/sessions/s1/export', headers });
    const importAs = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/sessions/import',
        payload: TRANSCRIPT,
        headers: { ...headers, 'content-type': 'application/jsonl' },
      });

    expect((await forkAs(other)).statusCode).toBe(404);
    expect((await exportAs(other)).statusCode).toBe(404);
    expect((await forkAs(reader)).statusCode).toBe(403);
    expect((await importAs(reader)).statusCode).toBe(403);
    expect((await exportAs(reader)).statusCode).toBe(200);
    expect((await forkAs(writer)).statusCode).toBe(200);
    expect((await importAs(writer)).statusCode).toBe(201);
    expect(owners.owners.get('forked-session')).toBe('tenant-a');
    expect(owners.owners.get('imported-session')).toBe('tenant-a');
    expect(backend.calls.filter((c) => c.method !== 'knows').map((c) => c.method)).toEqual([
      'fork',
      'importSession',
    ]);
  });
});
