import { type BusConnection, connectBus, lastSessionSequence, RuntimeClient } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { buildApp } from '@agentwire/gateway';
import { openSse, type SseConnection, type Stack, startStack } from '@agentwire/gateway/testing';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: TestEnvironment;
let stack: Stack;
let base: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env, { gateway: true, gatewayEnv: { AW_GATEWAY_HEARTBEAT_MS: '300' } });
  base = stack.gatewayUrl ?? '';
});

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
});

async function post(path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    ...(body === undefined
      ? {}
      : {
          body: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
  });
  return { status: res.status, json: (await res.json()) as Reply['json'] };
}

/** A JSON reply of the gateway. */
interface Reply {
  readonly status: number;
  readonly json: {
    readonly [key: string]: unknown;
    readonly error?: { readonly code: string; readonly message: string };
    readonly asOfSeq?: number;
  };
}

const seqs = (c: SseConnection) => c.events.map((e) => e.sequenceNumber);

describe('gateway against real runtime, worker and projection processes', () => {
  it('prompts over HTTP, follows over SSE from 0 and resumes with Last-Event-ID exactly once', async () => {
    const opened = await post('/sessions');
    expect(opened.status).toBe(201);
    const sid = String(opened.json.sessionId);

    const first = await openSse(`${base}/sessions/${sid}/events?after=0`);
    expect(first.status).toBe(200);
    const prompt = await post(`/sessions/${sid}/prompt`, { text: '[scenario:two_tools] tidy up' });
    expect(prompt.status).toBe(202);
    expect(prompt.json).toMatchObject({ sessionId: sid, turnId: expect.any(String) });

    await waitUntil(() => first.events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 15_000,
      what: 'permission',
    });
    const asked = first.events.find((e) => e.type === 'permission_requested') as unknown as {
      payload: { requestId: string };
    };
    // Disconnect mid-turn, answer the permission while nobody follows, then reconnect.
    first.abort();
    await first.ended;
    const answered = await post(`/sessions/${sid}/permissions/${asked.payload.requestId}`, {
      decision: 'allow',
    });
    expect(answered.status).toBe(200);
    const lastId = first.frames.filter((f) => f.id !== undefined).at(-1)?.id ?? '0';
    const second = await openSse(`${base}/sessions/${sid}/events?after=0`, {
      'last-event-id': lastId,
    });
    await waitUntil(() => second.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 15_000,
      what: 'turn_complete',
    });

    const all = [...seqs(first), ...seqs(second)];
    expect(all).toEqual(all.map((_, i) => i + 1));
    expect(seqs(second)[0]).toBe(Number(lastId) + 1);
    // Frames carry ranges that continue each other from the base (R15.2, decision 0200).
    const ranges = second.readings.flatMap((r) => (r.kind === 'events' ? [r] : []));
    expect(ranges[0]?.fromSeq).toBe(Number(lastId) + 1);
    for (const [i, r] of ranges.entries()) {
      if (i > 0) expect(r.fromSeq).toBe((ranges[i - 1]?.toSeq ?? 0) + 1);
      expect(r.toSeq).toBe(r.events.at(-1)?.sequenceNumber);
    }
    expect(second.readings.every((r) => r.kind === 'events')).toBe(true);
    expect(second.events.map((e) => e.type)).toContain('permission_resolved');

    // Idle heartbeats keep the stream open; the stream stays live for the next turn.
    await waitUntil(() => second.frames.some((f) => f.comments.includes('heartbeat')), {
      timeoutMs: 5_000,
      what: 'heartbeat',
    });
    const again = await post(`/sessions/${sid}/prompt`, { text: 'second prompt', wait: true });
    expect(again).toMatchObject({ status: 200, json: { status: 'complete' } });
    await waitUntil(() => second.events.filter((e) => e.type === 'turn_complete').length === 2, {
      timeoutMs: 15_000,
      what: 'second turn streamed live',
    });
    const lastSeq = seqs(second).at(-1) ?? 0;
    second.abort();

    let projection: Reply = { status: 0, json: {} };
    await waitUntil(
      async () => {
        const res = await fetch(`${base}/sessions/${sid}/projection`);
        projection = { status: res.status, json: (await res.json()) as Reply['json'] };
        return projection.status === 200 && projection.json.asOfSeq === lastSeq;
      },
      { timeoutMs: 15_000, what: 'projection caught up' },
    );
    expect(projection.json).toMatchObject({ asOfSeq: lastSeq, projection: expect.any(Object) });
  });

  it('answers bad input with clear 4xx errors', async () => {
    const sid = String((await post('/sessions')).json.sessionId);
    // Bounded: a follow that tails instead of answering fails here, not at the test timeout.
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(5_000) });
      return { status: res.status, json: (await res.json()) as Reply['json'] };
    };
    // Prompts and follows of one unknown id race: the runtime looks the id up before it takes
    // a lease, so a follow never sees a trace of it and answers 404 (docs/decisions/0077).
    // Follows repeat while prompts to that id go one after another (concurrent ones would
    // share a single look-up), so some follow meets a look-up in progress.
    const started = Date.now();
    const unknownPrompts = (async () => {
      const replies: Reply[] = [];
      for (let i = 0; i < 10; i += 1) {
        replies.push(await post('/sessions/nobody-here/prompt', { text: 'hi' }));
      }
      return replies;
    })();
    let promptsDone = false;
    const settle = () => {
      promptsDone = true;
    };
    unknownPrompts.then(settle, settle);
    const followRepeatedly = async (): Promise<Reply[]> => {
      const replies = [await get('/sessions/nobody-here/events')];
      while (!promptsDone) replies.push(await get('/sessions/nobody-here/events'));
      return replies;
    };
    const unknownFollows = Promise.all([followRepeatedly(), followRepeatedly()]);
    const worst = (all: Reply[]): Reply => all.find((r) => r.status !== 404) ?? (all[0] as Reply);
    const cases: [string, Promise<Reply>, number, string][] = [
      ['malformed JSON', post(`/sessions/${sid}/prompt`, '{"text":'), 400, 'invalid_json'],
      ['text is a number', post(`/sessions/${sid}/prompt`, { text: 7 }), 400, 'invalid_request'],
      ['empty prompt', post(`/sessions/${sid}/prompt`, { text: '  ' }), 400, 'empty_input'],
      [
        'oversized prompt',
        post(`/sessions/${sid}/prompt`, { text: 'x'.repeat(5000) }),
        413,
        'prompt_too_large',
      ],
      [
        'body over the limit',
        post(`/sessions/${sid}/prompt`, { text: 'x'.repeat(300_000) }),
        413,
        'body_too_large',
      ],
      [
        'bad decision',
        post(`/sessions/${sid}/permissions/r1`, { decision: 'perhaps' }),
        400,
        'invalid_request',
      ],
      [
        'unknown permission request',
        post(`/sessions/${sid}/permissions/r1`, { decision: 'deny' }),
        404,
        'unknown_permission_request',
      ],
      ['interrupt without a turn', post(`/sessions/${sid}/interrupt`), 409, 'no_active_turn'],
      ['prompts to an unknown session', unknownPrompts.then(worst), 404, 'unknown_session'],
      [
        'follows of that unknown session, during the prompts',
        unknownFollows.then((replies) => worst(replies.flat())),
        404,
        'unknown_session',
      ],
      [
        'invalid session id',
        post('/sessions/has%20space/prompt', { text: 'hi' }),
        400,
        'invalid_request',
      ],
      ['non-numeric after', get(`/sessions/${sid}/events?after=abc`), 400, 'invalid_request'],
      [
        'projection of an unknown session',
        get('/sessions/nobody-here/projection'),
        404,
        'not_found',
      ],
    ];
    const results = await Promise.all(cases.map(async ([what, res]) => [what, await res] as const));
    // Every refusal is prompt: no request waits out a runtime timeout (15 s) or a tail.
    expect(Date.now() - started).toBeLessThan(8_000);
    for (const [i, [what, res]] of results.entries()) {
      const [, , status, code] = cases[i] ?? [];
      expect({ what, status: res.status, code: res.json.error?.code }).toEqual({
        what,
        status,
        code,
      });
      expect(typeof res.json.error?.message).toBe('string');
    }
    const named = results.find(([what]) => what === 'text is a number')?.[1];
    expect(named?.json.error?.message).toMatch(/body\.text/);
  });

  it('queues a prompt sent during a running turn: 202 with the input, not a turn', async () => {
    const sid = String((await post('/sessions')).json.sessionId);
    // two_tools waits for a permission answer, so its turn is still running below.
    const first = await post(`/sessions/${sid}/prompt`, { text: '[scenario:two_tools] go' });
    expect(first).toMatchObject({
      status: 202,
      json: { queued: false, turnId: expect.any(String) },
    });
    const second = await post(`/sessions/${sid}/prompt`, { text: 'and then this' });
    expect(second.status).toBe(202);
    expect(second.json).toMatchObject({
      queued: true,
      sessionId: sid,
      inputId: expect.any(String),
      delivery: 'queue',
      targetTurnId: first.json.turnId,
    });
    expect(second.json.turnId).toBeUndefined();
  });

  it('sends a snapshot when the base is older than the retained events, then follows on (R15.1)', async () => {
    const sid = String((await post('/sessions')).json.sessionId);
    const turn = await post(`/sessions/${sid}/prompt`, { text: 'before the window', wait: true });
    expect(turn).toMatchObject({ status: 200, json: { status: 'complete' } });
    const n = names(env.prefix);
    const bus = await connectBus({ servers: env.natsUrl, name: 'gateway-e2e-window' });
    try {
      const tip = await lastSessionSequence(bus.jsm, n, sid);
      if (tip === null) throw new Error(`no events of ${sid}`);
      await waitUntil(
        async () => {
          const res = await fetch(`${base}/sessions/${sid}/projection`);
          return (
            res.status === 200 &&
            (((await res.json()) as Reply['json']).asOfSeq ?? 0) >= tip.sequenceNumber
          );
        },
        { timeoutMs: 15_000, what: 'projection caught up' },
      );
      // The stream's age limit drops the session's messages, all but the last.
      const purged = await bus.jsm.streams.purge(n.eventsStream, {
        filter: n.sessionFilter(sid),
        seq: tip.streamSequence,
      });
      expect(purged.purged).toBeGreaterThan(1);
    } finally {
      await bus.close();
    }

    const sse = await openSse(`${base}/sessions/${sid}/events?after=1`);
    expect(sse.status).toBe(200);
    await waitUntil(() => sse.frames.some((f) => f.event === 'snapshot'), {
      timeoutMs: 10_000,
      what: 'snapshot frame',
    });
    const snapshot = sse.frames.find((f) => f.event === 'snapshot');
    const data = JSON.parse(snapshot?.data ?? '{}') as {
      projection: { id: string; lastSequenceNumber: number };
      asOfSeq: number;
    };
    expect(snapshot?.id).toBe(String(data.asOfSeq));
    expect(data.projection).toMatchObject({ id: sid, lastSequenceNumber: data.asOfSeq });
    expect(sse.events).toEqual([]);

    // The stream follows on after the snapshot: the next turn streams live, nothing twice.
    const again = await post(`/sessions/${sid}/prompt`, { text: 'after the window', wait: true });
    expect(again).toMatchObject({ status: 200, json: { status: 'complete' } });
    await waitUntil(() => sse.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 15_000,
      what: 'the next turn over the same stream',
    });
    const numbers = seqs(sse);
    expect(numbers[0]).toBe(data.asOfSeq + 1);
    expect(numbers).toEqual([...new Set(numbers)].sort((a, b) => a - b));
    expect(sse.frames.filter((f) => f.event !== undefined).map((f) => f.event)).toEqual([
      'snapshot',
    ]);
    sse.abort();
    await sse.ended;
  });

  it('serves health, readiness and metrics with request counts', async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toMatchObject({ service: 'gateway' });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('agentwire_gateway_requests');
    expect(metrics).toContain('agentwire_gateway_sse_events');
  });

  it('on SIGTERM ends open SSE streams cleanly and exits 0', async () => {
    const sid = String((await post('/sessions')).json.sessionId);
    await post(`/sessions/${sid}/prompt`, { text: 'hello', wait: true });
    const open = await openSse(`${base}/sessions/${sid}/events`);
    await waitUntil(() => open.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 10_000,
      what: 'replay',
    });
    const gateway = stack.gateway;
    gateway?.kill('SIGTERM');
    await open.ended;
    expect(open.frames.some((f) => f.comments.includes('shutting down'))).toBe(true);
    expect(await gateway?.exited).toBe(0);
    expect(gateway?.lines.some((l) => l.includes('gateway closed its sse streams'))).toBe(true);
  });
});

describe('gateway RuntimeClient over real NATS without a runtime', () => {
  let bus: BusConnection;
  let app: ReturnType<typeof buildApp>;
  const prefix = () => `${env.prefix}x`;

  beforeAll(async () => {
    bus = await connectBus({ servers: env.natsUrl, name: 'gateway-e2e' });
    app = buildApp({
      backend: new RuntimeClient(bus, names(prefix()), { timeoutMs: 300 }),
      requestTimeoutMs: 300,
    });
  });
  afterAll(async () => {
    await app?.close();
    await bus?.close();
  });

  it('maps no responders to 503, a silent responder to 504 and a lease conflict to 409', async () => {
    const inject = (sid: string) =>
      app.inject({ method: 'POST', url: `/sessions/${sid}/rename`, payload: { title: 't' } });
    const none = await inject('s-none');
    expect({ status: none.statusCode, code: none.json().error.code }).toEqual({
      status: 503,
      code: 'unavailable',
    });

    const silent = bus.nc.subscribe(`${prefix()}.rt.s-silent.rename`, { callback: () => {} });
    const conflict = bus.nc.subscribe(`${prefix()}.rt.s-owned.rename`, {
      callback: (_e, m) => {
        m.respond(
          JSON.stringify({
            ok: false,
            error: { code: 'lease_conflict', message: 'owned', detail: { owner: 'rt9' } },
          }),
        );
      },
    });
    const garbled = bus.nc.subscribe(`${prefix()}.rt.s-garbled.rename`, {
      callback: (_e, m) => {
        m.respond(JSON.stringify({ ok: true, titel: 'typo' }));
      },
    });
    await bus.nc.flush();
    const [timedOut, owned, bad] = await Promise.all([
      inject('s-silent'),
      inject('s-owned'),
      inject('s-garbled'),
    ]);
    silent.unsubscribe();
    conflict.unsubscribe();
    garbled.unsubscribe();
    expect({ status: timedOut.statusCode, code: timedOut.json().error.code }).toEqual({
      status: 504,
      code: 'timeout',
    });
    expect(owned.statusCode).toBe(409);
    expect(owned.json()).toEqual({
      error: { code: 'lease_conflict', message: 'owned', detail: { owner: 'rt9' } },
    });
    expect({ status: bad.statusCode, code: bad.json().error.code }).toEqual({
      status: 502,
      code: 'invalid_reply',
    });
  });
});
