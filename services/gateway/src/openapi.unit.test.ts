import type { RuntimeResult } from '@agentwire/bus';
import type { ListSessionsReply } from '@agentwire/contracts';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from './build-app.ts';
import type { QueryBackend } from './query-port.ts';
import { FakeBackend } from './testing/fake-backend.ts';

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
}

const summary = {
  id: 's1',
  parentId: null,
  taskType: null,
  title: 'Fix the build',
  titleSource: 'generated' as const,
  directory: '/repo',
  root: '/repo',
  archived: false,
  createdAt: 1,
  updatedAt: 2,
  status: 'idle' as const,
  lastActivityAt: 2,
  lastSequence: 9,
};

/** A read side answering fixed replies; `listReply` can be set to a malformed one. */
function fakeQuery(): QueryBackend & { listReply: unknown } {
  return {
    listReply: { ok: true, sessions: [summary], nextCursor: null },
    async listSessions() {
      return this.listReply as RuntimeResult<ListSessionsReply>;
    },
    async history(request) {
      return {
        ok: true,
        sessionId: request.sessionId,
        messages: [],
        older: null,
        newer: null,
        asOfSeq: 0,
      };
    },
    async archive(request) {
      return { ok: true, sessionId: request.sessionId, archived: request.archived ?? true };
    },
    async delete(sessionId) {
      return { ok: true, sessionId, messages: 0, events: 0 };
    },
    async exportSession(sessionId) {
      return { ok: false, error: { code: 'not_found', message: `no session ${sessionId}` } };
    },
  };
}

let app: FastifyInstance;
let query: ReturnType<typeof fakeQuery>;

beforeEach(async () => {
  query = fakeQuery();
  app = buildApp({ backend: new FakeBackend(), query });
  await app.ready();
});

afterEach(async () => {
  await app.close();
});

/** `/sessions/:id/history` as OpenAPI writes it: `/sessions/{id}/history`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document listing every route the gateway serves', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<Document>();
    expect(doc.openapi).toBe('3.1.0');
    const routes = app.gatewayRoutes.filter((r) => r.url !== '/openapi.json');
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const missing = routes.filter(
      (r) => doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()] === undefined,
    );
    expect(missing).toEqual([]);
    for (const route of ['GET /sessions', 'GET /sessions/:id/history', 'DELETE /sessions/:id']) {
      expect(routes.map((r) => `${r.method} ${r.url}`)).toContain(route);
    }
  });

  it('is a valid OpenAPI document (swagger-parser)', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<object>();
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('takes the parameters from the routes zod schemas', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
    const history = doc.paths['/sessions/{id}/history']?.get?.parameters ?? [];
    expect(history.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
      ['path:id', 'query:asOfSeq', 'query:cursor', 'query:from', 'query:limit'].sort(),
    );
    const list = doc.paths['/sessions']?.get?.parameters ?? [];
    expect(list.map((p) => p.name).sort()).toEqual(
      ['archived', 'cursor', 'directory', 'limit', 'parentId', 'taskType'].sort(),
    );
  });
});

describe('documented responses', () => {
  it('serves a reply that matches its schema', async () => {
    const res = await app.inject({ method: 'GET', url: '/sessions' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ sessions: [summary], nextCursor: null });
  });

  it('refuses to send a reply that does not match its documented schema', async () => {
    query.listReply = { ok: true, sessions: [{ ...summary, status: 'dancing' }], nextCursor: null };
    const res = await app.inject({ method: 'GET', url: '/sessions' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: { code: 'internal' } });
  });
});
